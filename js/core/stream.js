// The life of one stream: opened when its response arrives (or replayed once the module has
// loaded, for a stream that began before), its chunks noted by the tap, ended by the body, settled
// once its text is painted (or the page is quiet), then reported: the shell hands the core what
// only the browser knows, the core writes the report, and the listeners get it (reports.js).

import { load, ready, generationOf } from './wasm.js';
import { feedRead } from './link.js';
import { HEADERS } from '../schema.js';
import { tap } from '../transports/tap.js';
import { WEAK } from './weak.js';
import { END_COMPLETE, END_ABORTED, END_FAILED } from '../words.js';
import { RESOURCE_FIELDS } from '../options.js';
import { open } from './calls.js';

/** @typedef {import('../../pkg/tokenpaint_core.js').Core} Core */
/** @typedef {import('./hub.js').Options} Options */
/**
 * What a stream works with, each part named once and handed over by its owner (hub.js), never
 * fetched from a shared object (issue 60): the profiler's options and stream sample rate, the core link,
 * the DOM watch, the Resource Timing entries, the reports, the frame meter and input timing, the
 * learning loader, and the owner's register of open streams.
 * @typedef {object} Parts
 * @property {Options} options
 * @property {number} sampleRate `streamSampleRate`
 * @property {import('./link.js').CoreLink} link
 * @property {import('../browser/watch.js').DomWatch} watch
 * @property {import('../browser/resource.js').ResourceEntries} resources
 * @property {import('./reports.js').Reports} reports
 * @property {import('../browser/frames.js').FrameMeter} meter
 * @property {import('../browser/input.js').InputTiming} inputs
 * @property {import('./learners.js').Learning} learning
 * @property {Register} register
 */
/**
 * The owner's register of open streams: `opened(s)`; `closed(s, reported)`, which gives the
 * element that showed its answer; `done(s)`, once it is reported or discarded (its frames and its
 * Resource Timing entries are no longer wanted); `hurry()`, whether reports go out at once (the
 * profiler is disconnecting).
 * @typedef {{ opened(s: Stream): void, closed(s: Stream, reported?: boolean): import('../report.js').ShownIn | null, done(s: Stream, reported: boolean): void, hurry(): boolean }} Register
 */
/**
 * The response a stream reads: a Response, or what a transport knows of one.
 * @typedef {{ status: number, headers: Headers | null, body?: ReadableStream<Uint8Array> | null, url?: string }} ResponseLike
 */
/**
 * What the shell knows of a stream when it opens (from the transport that carries it).
 * @typedef {object} StreamOptions
 * @property {string} url the request URL as reports name it
 * @property {string} [fullUrl] the request URL in full (for its Resource Timing entry)
 * @property {number} start the request start (NaN: unknown)
 * @property {string} [label] the app's label
 * @property {import('../report.js').StreamReport['transport']} [transport] fetch, xhr, eventsource, websocket, …
 * @property {string} [resumedFrom] the stream a resumed one continues
 * @property {string} [format] the wire format, if the app says
 * @property {import('../export/otel.js').Trace | null} [trace] OpenTelemetry: the requested model, the request's span
 * @property {string | null} [arrival] the arrival clock's name for it
 * @property {Element | null} [target] the element the app said will show it
 * @property {import('../report.js').ReadBy | null} [read] how the shell reads it (and, once over, how it ended)
 * @property {import('../report.js').StartBy} [startBy] what its start is: its own request, or the request, frame or submit that asked
 * @property {boolean} [guess] only guessed to be an answer (instrument() with no match)
 * @property {boolean} [startUnknown] its request was not seen
 * @property {boolean} [learned] its answer is read by a reading learned from the page (answers.js)
 * @property {number} [headersAt] when its headers came (the stub's streams)
 * @property {boolean} [asks] the page's requests and frames are seen (instrument()), for its start
 */

/**
 * Whether a new stream is left out of the sample (`streamSampleRate`, one draw per stream).
 * @param {number} rate
 */
const leftOut = (rate) => rate < 1 && !(Math.random() < rate);

// Chunks kept for a stream that started before the module loaded.
const MAX_EARLY = 4096;
const MAX_EARLY_BYTES = 4 * 1024 * 1024;

/**
 * The response the app reads: `res` passed through the tap, or `res` itself unprofiled.
 * @param {Parts} parts
 * @param {Response} res
 * @param {StreamOptions} o
 */
export function wrap(parts, res, o) {
  try {
    if (!res || !res.body) return res;
    // Passed through the opt-in arrival clock (js/arrival-sw.js): its stamps name the stream.
    const { options } = parts;
    const arrival = options.arrivalClock && res.headers && res.headers.get('x-tokenpaint-arrival');
    if (arrival) o = { ...o, arrival };
    const f = feed(parts, res, o);
    if (!f) return res;
    const out = tap(res, f);
    if (out === res) f.discard();
    return out;
  } catch {
    return res;
  }
}

/**
 * The sink of one stream, whatever carries it (the fetch tap, XHR, EventSource, a socket, the
 * push handle): `chunk(bytes, t)`, `end(kind, t, message)` (kind END_COMPLETE, END_ABORTED or END_FAILED: js/words.js),
 * `discard()`. `res` gives the status and headers (a Response, or `{ status, headers }`). Null
 * when the core cannot open it. Before the module has loaded (a stream started right after the
 * page did), the chunks and the end are kept with their times and replayed once it is ready.
 */
/** @typedef {{ chunk(bytes: Uint8Array, t: number): void, end(kind: number, t: number, message: string): void, discard(): void, late(): void, changedAt(): number }} Sink */

/**
 * @param {Parts} parts
 * @param {ResponseLike} res
 * @param {StreamOptions} o
 * @returns {Sink | null}
 */
export function feed(parts, res, o) {
  const { link, learning, sampleRate } = parts;
  // A stream left out of the sample: nothing is opened, nothing wrapped.
  if (leftOut(sampleRate)) return null;
  // The stub (lazy.js) hands over a stream that began before the profiler loaded, with the
  // time its headers came.
  const headersAt = typeof o.headersAt === 'number' ? o.headersAt : performance.now();
  // An answer on a socket whose request was not seen: its start is unknown (not the first
  // message's time), and so is everything measured from it.
  if (o.startUnknown) o = { ...o, start: NaN };
  const open = () => Stream.open(parts, res, o, headersAt);
  let s = ready() ? open() : undefined;
  if (s === null) return null;
  // A stream the profiler only guessed is an answer (instrument() with no match): the shell
  // reads it too, until the core's reader holds it, or the page shows where its answer is.
  // Once it reads the answer itself, the core's stream goes without a report: the answer's is.
  const side = o.guess ? learning.sidecar(res, { ...o, headersAt }, () => s, () => drop()) : null;
  const drop = () => {
    if (s) s.discard();
    s = null;
    early.length = 0;
  };
  /** @type {Array<[Uint8Array | null, number, number?, string?]>} */
  const early = [];
  let earlyBytes = 0;
  // Bytes read so far: where each chunk ends, for the arrival clock's stamps.
  let end = 0;
  if (s === undefined) {
    load().then(
      () => {
        if (s !== undefined) return;
        const opened = (ready() && open()) || null;
        s = opened;
        if (opened) {
          for (const [bytes, t, kind, message] of early) {
            if (bytes) link.call((c) => feedRead(c, opened.id, bytes, t), undefined, opened);
            else opened.end(kind || END_COMPLETE, t, message || '');
          }
        }
        early.length = 0;
        // Text the page showed in the meantime: read it now (its commits are late by the
        // wait, at most, and the report says so).
        if (s) s.catchUp();
      },
      () => {
        s = null;
        early.length = 0;
      },
    );
  }
  return {
    chunk(bytes, t) {
      end += bytes.byteLength;
      if (side) side.chunk(bytes, t);
      if (s) {
        s.lastActivity = t;
        // A copy: the app may transfer or reuse its buffer before the queue is flushed.
        link.defer({ s, bytes: link.copy(bytes), t, end });
      } else if (s === undefined) {
        earlyBytes += bytes.byteLength;
        if (early.length < MAX_EARLY && earlyBytes <= MAX_EARLY_BYTES) early.push([bytes.slice(), t]);
        else {
          s = null; // the module takes too long: this stream goes unprofiled
          early.length = 0;
        }
      }
    },
    end(kind, t, message) {
      if (side) side.end(kind, t, message);
      if (s) s.end(kind, t, message);
      else if (s === undefined) early.push([null, t, kind, message]);
    },
    discard() {
      if (side) side.stop();
      if (s) s.discard();
      s = null;
      early.length = 0;
    },
    // Handed over late by the stub (its chunks replayed): the text the page showed meanwhile
    // is read now, and the report says those commits are late by the wait, at most.
    late() {
      if (s) s.catchUp();
    },
    // When its answer last changed on the page (0: never), for an end by quiet (answers.js).
    changedAt() {
      return s ? s.lastCommit : 0;
    },
  };
}

/**
 * A request that failed before any response: reported at once, with what is known.
 * @param {Parts} parts
 * @param {string} url
 * @param {number} start
 * @param {unknown} e what fetch threw
 */
export function failedBeforeResponse({ link, options, reports, sampleRate }, url, start, e) {
  if (leftOut(sampleRate)) return;
  const id = link.call((c) => open(c, { format: options.format, url, start }), 0);
  if (!id) return;
  const err = /** @type {Error | null | undefined} */ (e);
  const aborted = err && err.name === 'AbortError';
  link.call((c) => c.end(id, aborted ? END_ABORTED : END_FAILED, performance.now(), String((err && err.message) || e)));
  reports.emit(id, { url, start, transport: 'fetch' });
}

/**
 * One stream's state, owned here: what it is (set once, read-only), where its life stands, and
 * its collaborators, each a private field handed over when it opens.
 */
export class Stream {
  #link;
  #watch;
  #resources;
  #reports;
  #meter;
  #inputs;
  #register;
  /** @type {Options} */
  #options;
  // How the body ended (js/words.js END_*), and when (0: not yet).
  /** @type {number} */
  #endKind = END_COMPLETE;
  #endedAt = 0;
  /** @type {ReturnType<typeof setTimeout> | 0} */
  #timer = 0;
  // Whether it carries an answer: known unless the profiler only guessed (instrument() with no
  // match); then a reader of the core's, or the page showing its text, says so.
  #answer;

  /**
   * Opens the core's session for a response; null when the core cannot.
   * @param {Parts} parts
   * @param {ResponseLike} res
   * @param {StreamOptions} o
   * @param {number} headersAt
   */
  static open(parts, res, o, headersAt) {
    try {
      const { options, link, watch, register } = parts;
      const contentType = (res.headers && res.headers.get('content-type')) || '';
      const format = o.format || options.format || 'auto';
      let hints = headerHints(res.headers);
      // The app's own mapping of its server's timings (headers it controls).
      if (typeof options.serverTiming === 'function') {
        try {
          hints += serverTimingLine(options.serverTiming(/** @type {Response} */ (res)));
        } catch {
          /* the app's mapping failed: go on without it */
        }
      }
      const id = link.call(
        // The stream's options name its url, start, label, transport, resumedFrom and startUnknown.
        (c) => open(c, { ...o, format, contentType, headers: hints, headersAt, httpStatus: res.status, keepText: options.includeText === true, priorChars: watch.heldChars(o.target) }),
        0,
      );
      if (!id) return null;
      const s = new Stream(parts, id, o, headersAt);
      register.opened(s);
      return s;
    } catch {
      return null;
    }
  }

  /**
   * @param {Parts} parts
   * @param {number} id its session in the core
   * @param {StreamOptions} o
   * @param {number} headersAt
   */
  constructor({ link, watch, resources, reports, meter, inputs, register, options }, id, o, headersAt) {
    this.#link = link;
    this.#watch = watch;
    this.#resources = resources;
    this.#reports = reports;
    this.#meter = meter;
    this.#inputs = inputs;
    this.#register = register;
    this.#options = options;
    this.#answer = !o.guess;
    // What it is: set once.
    /** @readonly */
    this.id = id;
    // The module's generation the stream's session lives in (a trap starts a new one).
    /** @readonly */
    this.gen = generationOf();
    /** @readonly */
    this.transport = o.transport || 'fetch';
    /** @readonly */
    this.url = o.url;
    /** @readonly */
    this.fullUrl = o.fullUrl;
    // OpenTelemetry: the requested model, and the trace sent in `traceparent`, if any.
    /** @readonly */
    this.trace = o.trace || null;
    /** @readonly */
    this.headersAt = headersAt;
    // The arrival clock's name for the stream (its stamps), if it passed through it.
    /** @readonly */
    this.arrival = o.arrival || null;
    // The element the app said will show it, if any.
    /** @readonly */
    this.target = o.target;
    // How its answer is read (`{ by, format | path, end }`), when the shell reads it (answers.js).
    /** @readonly */
    this.read = o.read || null;
    // What its start is, when it is not its own request (answers.js `startOf`).
    /** @readonly */
    this.startBy = o.startBy || null;
    // Where its life stands (public, read by the owner, the DOM watch and the link):
    // its start (NaN until a Resource Timing entry gives it, for a tracked response),
    this.start = o.start;
    this.ended = false;
    // reported or discarded,
    this.done = false;
    // when its text last changed on the page (0: never), and its last chunk,
    this.lastCommit = 0;
    this.lastActivity = performance.now();
    // the Resource Timing entry the report was made with (undefined until looked for),
    /** @type {PerformanceResourceTiming | null | undefined} */
    this.entry = undefined;
    // and the element that showed its answer (`{ selector, how }`), once reported; null if none did.
    /** @type {import('../report.js').ShownIn | null} */
    this.element = null;
  }

  /** Whether it carries an answer (see `#answer`). */
  isAnswer() {
    if (!this.#answer && !WEAK.has(this.call((c) => c.format(this.id), ''))) this.#answer = true;
    return this.#answer;
  }

  /** It carries an answer: the page shows its text, or a reader holds it. */
  confirm() {
    this.#answer = true;
  }

  /**
   * Calls `fn(core)` for this stream (after the queue), or gives `fallback`.
   * @template T, F
   * @param {(core: Core) => T} fn
   * @param {F} [fallback]
   * @returns {T | F}
   */
  call(fn, fallback) {
    return this.#link.call(fn, fallback, this);
  }

  /**
   * The body ended at `t` (`kind`: js/words.js END_COMPLETE, END_ABORTED, END_FAILED; `message`).
   * @param {number} kind
   * @param {number} t
   * @param {string} [message]
   */
  end(kind, t, message) {
    if (this.ended) return;
    this.ended = true;
    this.#endKind = kind;
    this.#endedAt = t;
    this.call((c) => c.end(this.id, kind, t, message || ''));
    this.checkSettled();
  }

  /**
   * The core took `n` tokens of the page's text at `t` (-1: it lost step with the page).
   * @param {number} n
   * @param {number} t
   */
  committed(n, t) {
    if (n < 0) this.#watch.outOfStep(this);
    if (n > 0) {
      this.lastCommit = t;
      if (this.ended) this.#armSettle();
    }
  }

  /** Reads what the page already shows (a stream opened after its text was there). */
  catchUp() {
    try {
      const t = performance.now();
      this.call((c) => c.caught_up(this.id, t));
      this.#watch.catchUp(this, t);
      if (this.ended) this.checkSettled();
    } catch {
      /* never into the page */
    }
  }

  // A report is taken once the stream ended and all its text is painted, or once the page has
  // been quiet for settleMs after the end (text never rendered, a hidden page), at most
  // maxSettleMs after the end.
  checkSettled() {
    if (this.done) return;
    if (!this.#watch.watching(this) || this.call((c) => c.settled(this.id), true)) this.finish();
    else this.#armSettle();
  }

  #armSettle() {
    clearTimeout(this.#timer);
    const o = this.#options;
    const quietUntil = Math.max(this.#endedAt, this.lastCommit) + o.settleMs;
    const deadline = this.#endedAt + o.maxSettleMs;
    const wait = Math.max(0, Math.min(quietUntil, deadline) - performance.now());
    this.#timer = setTimeout(() => this.finish(), wait);
  }

  // What only the browser can tell, handed to the core before the report is made: why the
  // answer's element was not found, the request's Resource Timing entry (and from it the start
  // of a tracked response), and the frames and inputs seen since it opened.
  beforeReport() {
    try {
      const reason = this.#watch.unseen(this);
      if (reason !== null) this.call((c) => c.dom_reason(this.id, reason));
      const e = this.entry !== undefined ? this.entry : this.#resources.find(this.fullUrl, this.start, this.#endedAt, this.headersAt);
      if (e) {
        if (Number.isNaN(this.start)) {
          this.start = e.startTime;
          this.call((c) => c.set_start(this.id, e.startTime));
        }
        const entry = /** @type {Record<string, number>} */ (/** @type {unknown} */ (e));
        const fields = Float64Array.from(RESOURCE_FIELDS, (k) => entry[k]);
        this.call((c) => c.resource(this.id, fields));
      }
      // The frames painted since it opened (the smoothness figures, a freeze's frames).
      const frames = this.#meter.since(this.start);
      if (frames.length > 1) this.call((c) => c.frames(this.id, Float64Array.from(frames)));
      // The user's interactions meanwhile (Event Timing).
      const inputs = this.#inputs.since(this.start);
      if (inputs.length) this.call((c) => c.inputs(this.id, Float64Array.from(inputs)));
    } catch {
      /* the report goes without */
    }
  }

  /** Nobody reads it: it goes without a report (its element is free for another stream). */
  discard() {
    this.done = true;
    this.#register.closed(this, false);
    this.#register.done(this, false);
    this.call((c) => c.finish(this.id, false, false), '');
  }

  /** Reported: once the Resource Timing entry is there, or at once where none will come. */
  finish() {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.#timer);
    const resources = this.#resources;
    this.element = this.#register.closed(this);
    const emit = (/** @type {PerformanceResourceTiming | null} */ entry) => {
      this.entry = entry;
      try {
        this.#reports.emit(this.id, this);
      } finally {
        this.#register.done(this, true);
      }
    };
    // The Resource Timing entry comes in a task of its own after the body's end: a stream read
    // to its end waits for it, within a bound (a cancelled or failed one may never get one).
    const complete = this.ended && this.#endKind === END_COMPLETE;
    const entry = resources.find(this.fullUrl, this.start, this.#endedAt, this.headersAt);
    if (entry || !complete || !resources.observer || this.#register.hurry()) emit(entry);
    else resources.wait(this.fullUrl, this.start, this.#endedAt, emit);
  }
}

// The response headers the core reads (js/schema.js, generated from src/read/mod.rs), as
// `name: value` lines. Only these are passed: nothing else leaves the page's JS objects.
/** @param {Headers | null} headers */
function headerHints(headers) {
  if (!headers || typeof headers.get !== 'function') return '';
  let out = '';
  for (const name of HEADERS) {
    const v = headers.get(name);
    if (v !== null) out += `${name}: ${v}\n`;
  }
  return out;
}

/**
 * `{ queue: 12, prefill: 80 }` (ms) → a Server-Timing line the core reads.
 * @param {unknown} t what the app's mapping gave
 */
function serverTimingLine(t) {
  if (!t || typeof t !== 'object') return '';
  const out = [];
  for (const [name, dur] of Object.entries(t)) {
    if (/^[a-zA-Z]+$/.test(name) && Number.isFinite(dur)) out.push(`${name};dur=${dur}`);
  }
  return out.length ? `server-timing: ${out.join(', ')}\n` : '';
}
