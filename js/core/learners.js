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
 * @typedef {{ url: string, transport: string, events: number }} Seen
 */

export class Learning {
  /** @type {import('./hub.js').Hub} */
  #hub;
  /** @type {Promise<void> | null} */
  #loading;

  /** @param {import('./hub.js').Hub} hub */
  constructor(hub) {
    this.#hub = hub;
    this.#loading = null;
    /** @type {LearningModule | null} */
    this.mod = null;
    // The DOM watch's side, once loaded (learning.js `Teacher`).
    /** @type {import('./learning.js').Teacher | null} */
    this.teacher = null;
    // Learners that ended without learning (`{ url, transport, events, endedAt }`, the newest
    // 16): the streams a report of an answer nobody could read names.
    /** @type {Array<{ url: string, transport: string, events: number, endedAt: number }>} */
    this.unreadable = [];
    // What the learners have yet to read (learning.js `tasks`): run when the page changes.
    /** @type {Set<() => void>} */
    this.pending = new Set();
  }

  /** Runs what the learners have yet to read (the page changed: their arrivals come first). */
  flush() {
    for (const f of [...this.pending]) f();
  }

  load() {
    this.#loading ??= import('./learning.js').then(
      (m) => {
        this.mod = m;
        this.teacher = new m.Teacher(this.#hub);
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
    return this.#made((m) => new m.Sidecar(this.#hub, res, o, stream, drop), ['chunk', 'end', 'stop']);
  }

  /**
   * A socket's Open WebUI reader and learner (learning.js `socketLearner`): `{ event, closeAll }`.
   * @param {Parameters<LearningModule['socketLearner']>[1]} o
   */
  socket(o) {
    return this.#made((m) => m.socketLearner(this.#hub, o), ['event', 'closeAll']);
  }

  /**
   * A learner ended without learning: what it saw (`describe()`), ended at `t`.
   * @param {{ url: string, transport: string, events: number }} d
   * @param {number} t
   */
  unlearned(d, t) {
    this.unreadable.push({ ...d, endedAt: t });
    if (this.unreadable.length > 16) this.unreadable.shift();
  }

  // `make(module)` now, or a stand-in whose calls (`methods`) are kept, their bytes copied, and
  // replayed in order once the chunk has loaded (dropped past MAX_KEPT).
  /**
   * @template {object} R
   * @param {(m: LearningModule) => R} make
   * @param {string[]} methods
   * @returns {R}
   */
  #made(make, methods) {
    if (this.mod) return make(this.mod);
    /** @type {any} */
    let real = null;
    /** @type {[string, any[]][] | null} */
    let kept = [];
    this.load().then(() => {
      if (this.mod && kept) {
        real = make(this.mod);
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
