// The eager side of learning (issue 47): the learning chunk (learning.js) is imported at the
// first stream or socket no reader of the core's holds, or when `instrument()` guesses (the
// extension and the injected script), and what comes before it has loaded is kept and handed
// over in order. A page that profiles its own streams never loads it.

// Calls kept for one reader while the chunk loads, at most.
const MAX_KEPT = 4096;

/** @typedef {typeof import('./learning.js')} LearningModule */
/**
 * What learns where an answer is from the page (a Sidecar, a socket's learner): the DOM watch
 * hands it the text of each changed element; `describe()` says what it saw.
 * @typedef {{ shown(text: string, el?: Element): void, describe(): Seen }} PageLearner
 * @typedef {{ url: string, transport: import('../report.js').StreamReport['transport'], events: number }} Seen
 */

/**
 * What the learning chunk works with, handed to it once by its loader (each named; the chunk
 * never reaches back into the loader or the hub): the options, the share of streams profiled,
 * the learners the DOM watch hands changes to, the DOM watch (made after the loader), a request
 * for a frame, the reports, and a stream's sink (`feed`, hub.js).
 * @typedef {object} LearningParts
 * @property {import('./hub.js').Options} options
 * @property {number} rate
 * @property {Set<PageLearner>} learners
 * @property {() => import('../browser/watch.js').DomWatch} watch
 * @property {() => void} frame
 * @property {import('./reports.js').Reports} reports
 * @property {(res: import('./stream.js').ResponseLike, o: import('./stream.js').StreamOptions) => import('./stream.js').Sink | null} feed
 */

export class Learning {
  /** @type {LearningParts} */
  #parts;
  /** @type {Promise<void> | null} */
  #loading;

  /** @param {LearningParts} parts */
  constructor(parts) {
    this.#parts = parts;
    this.#loading = null;
    /** @type {LearningModule | null} */
    this.mod = null;
    // The DOM watch's side, once loaded (learning.js `Teacher`): it keeps the chunk's own state.
    /** @type {import('./learning.js').Teacher | null} */
    this.teacher = null;
  }

  /** Runs what the learners have yet to read (the page changed: their arrivals come first). */
  flush() {
    if (this.teacher) this.teacher.flush();
  }

  load() {
    this.#loading ??= import('./learning.js').then(
      (m) => {
        this.mod = m;
        this.teacher = new m.Teacher(this.#parts);
      },
      () => {},
    );
    return this.#loading;
  }

  /**
   * A guessed stream's own reading (learning.js `Sidecar`): `{ chunk, end, stop }`.
   * @param {import('./stream.js').ResponseLike} res
   * @param {import('./stream.js').StreamOptions} o
   * @param {() => import('./stream.js').Stream | null | undefined} stream
   * @param {() => void} drop
   */
  sidecar(res, o, stream, drop) {
    return this.#made((m, t) => new m.Sidecar(t, res, o, stream, drop), ['chunk', 'end', 'stop']);
  }

  /**
   * A socket's Open WebUI reader and learner (learning.js `socketLearner`): `{ event, closeAll }`.
   * @param {Parameters<LearningModule['socketLearner']>[1]} o
   */
  socket(o) {
    return this.#made((m, t) => m.socketLearner(t, o), ['event', 'closeAll']);
  }

  // `make(module)` now, or a stand-in whose calls (`methods`) are kept, their bytes copied, and
  // replayed in order once the chunk has loaded (dropped past MAX_KEPT).
  /**
   * @template {object} R
   * @param {(m: LearningModule, teacher: import('./learning.js').Teacher) => R} make
   * @param {string[]} methods
   * @returns {R}
   */
  #made(make, methods) {
    if (this.mod && this.teacher) return make(this.mod, this.teacher);
    /** @type {any} */
    let real = null;
    /** @type {[string, any[]][] | null} */
    let kept = [];
    this.load().then(() => {
      if (this.mod && this.teacher && kept) {
        real = make(this.mod, this.teacher);
        for (const [k, a] of kept) real[k](...a);
      }
      kept = null;
    });
    /** @type {Record<string, (...a: unknown[]) => unknown>} */
    const out = {};
    for (const k of methods) {
      out[k] = (...a) => {
        if (real) return real[k](...a);
        if (!kept) return;
        if (kept.length >= MAX_KEPT) kept = null;
        else kept.push([k, a.map((x) => (x instanceof Uint8Array ? x.slice() : x))]);
      };
    }
    return /** @type {R} */ (/** @type {unknown} */ (out));
  }
}
