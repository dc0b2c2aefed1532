// The link to a profiler's own core: the core is made once the module is ready (and again after
// a recovery from a trap), and everything the page saw waits in front of it in one ordered
// queue. Chunks, appended text and frames cross into the core together, once per FLUSH_MS (or
// when the queue is long, or before any other call into the core, which keeps the order): one
// warm pass through the core costs far less than one cold call per token. Chunks are copied when
// queued, so an app that transfers or reuses its buffer loses nothing.

import { createCore, call as callCore, generationOf, committedOf } from './wasm.js';
import { painted } from './calls.js';

// Deferred chunks, appends and frames: at most this many wait, at most this long.
const MAX_QUEUE = 1024;
const MAX_QUEUED_BYTES = 256 * 1024;
export const FLUSH_MS = 250;

// A read longer than this crosses into the core in parts of this length: the copy into the
// module's memory is a buffer of the module's, and a 2 MB read would otherwise take 2 MB more of
// memory that never shrinks.
const PART = 64 * 1024;

/**
 * Hands one read to the core (in parts when it is long; they count as one chunk). `seen`: the
 * arrival clock's [end offset, time] pairs for it (arrival.js), the read's bytes starting at
 * offset `start`: each part goes in with the time the browser had it.
 * @param {import('../../pkg/tokenpaint_core.js').Core} c @param {number} id @param {Uint8Array} bytes @param {number} t
 * @param {number[] | null} [seen] @param {number} [start]
 */
export function feedRead(c, id, bytes, t, seen = null, start = 0) {
  const n = bytes.byteLength;
  if (!seen) {
    if (n <= PART) return c.chunk(id, bytes, t, false, NaN);
    for (let at = 0; at < n; at += PART) c.chunk(id, bytes.subarray(at, at + PART), t, at > 0, NaN);
    return;
  }
  // One stretch per chunk the worker passed on at one time; the last pair covers the end.
  let at = 0;
  for (let k = 0; k < seen.length && at < n; k += 2) {
    const cut = k + 2 >= seen.length ? n : Math.min(n, seen[k] - start);
    while (at < cut) {
      const e = Math.min(cut, at + PART);
      c.chunk(id, bytes.subarray(at, e), t, at > 0, seen[k + 1]);
      at = e;
    }
  }
}

// Chunks are copied into a shared staging buffer rather than each into a buffer of its own: one
// allocation per STAGE bytes instead of one per chunk. A buffer that fills is left to the queued
// views that still point into it, and dropped with them when the queue is flushed.
const STAGE = 256 * 1024;

const idle = typeof requestIdleCallback === 'function';

/**
 * Runs `fn` FLUSH_MS from now, then as soon as the page is idle, and FLUSH_MS later at the
 * latest (requestIdleCallback's timeout; a timer alone where it is missing): the queue can wait
 * (its times were taken when things happened), the app's own work cannot. Not at background
 * priority with no deadline: on a page that is never idle the queue would then only cross when
 * full, in one long flush.
 */
/** @param {() => void} fn */
function later(fn) {
  setTimeout(idle ? () => requestIdleCallback(fn, { timeout: FLUSH_MS }) : fn, FLUSH_MS);
}

// A read the arrival clock stamped waits this long at most for the stamp to reach the page
// (a worker's message is a task of the page's, run after a long task as the read is).
const STAMP_WAIT_MS = 1000;

/** @typedef {import('../../pkg/tokenpaint_core.js').Core} Core */
/** @typedef {import('./stream.js').Stream} Stream */
/** @typedef {typeof import('../browser/arrival.js')} ArrivalClock the arrival clock's page side */
/**
 * What waits in the queue: a chunk (`bytes`, read up to offset `end`; `seen`: its arrival
 * stamps once looked up), an append of the element's text (`text` from `from`), or a frame
 * (`s` null).
 * @typedef {{ s: Stream, bytes: Uint8Array, t: number, end: number, seen?: number[] | null }} ChunkOp
 * @typedef {{ s: Stream, text: string, from: number, t: number, bytes?: undefined }} AppendOp
 * @typedef {{ s: null, frame: number, cutoff: number, after: number, since: number, bytes?: undefined }} FrameOp
 * @typedef {ChunkOp | AppendOp | FrameOp} Op
 */

export class CoreLink {
  /** @type {() => string} */
  #configure;
  /** @type {() => ArrivalClock | null} */
  #arrival;
  /** @type {(s: Stream) => void} */
  #beforeChunk;
  #gen;
  #framesSent;
  /** @type {Op[]} */
  #queue;
  #queuedBytes;
  #flushQueued;
  #flushTimer;
  #onTimer;
  /** @type {Uint8Array | null} */
  #stage;
  #stageAt;
  #stamped;

  /**
   * `configure()` gives the core's configuration, one value (what this engine gives, and how
   * figures are rated); `arrival()` the arrival clock's page side once it has loaded (or
   * null); `beforeChunk(stream)` runs before a stream's chunk is handed over (the DOM watch's
   * look for late shadow roots).
   * @param {{ configure: () => string, arrival: () => ArrivalClock | null, beforeChunk: (s: Stream) => void }} hooks
   */
  constructor({ configure, arrival, beforeChunk }) {
    this.#configure = configure;
    this.#arrival = arrival;
    this.#beforeChunk = beforeChunk;
    /** @type {Core | null} */
    this.core = null;
    this.#gen = -1;
    // Long frames handed to the core, by number (a new core has seen none).
    this.#framesSent = 0;
    this.#queue = [];
    this.#queuedBytes = 0;
    this.#flushQueued = false;
    this.#flushTimer = 0;
    this.#stage = null;
    this.#stageAt = 0;
    // Whether a queued read went through the arrival clock (it may have to wait for its stamp).
    this.#stamped = false;
    // The timer's flush: one timer at most is pending, whatever flushes came before it (a call
    // into the core flushes the queue too; it leaves the timer be, which then finds the queue
    // empty or holding newer work, rather than setting a timer and an idle callback per call).
    this.#onTimer = () => {
      this.#flushTimer = 0;
      this.flushSoon();
    };
    this.flushSoon = () => {
      try {
        this.flush(true);
      } catch {
        /* never into the page */
      }
    };
  }

  /**
   * Calls `fn(core)` after the queue, or gives `fallback`; `s`: the stream it is for.
   * @template T, F
   * @param {(core: Core) => T} fn
   * @param {F} [fallback]
   * @param {Stream | null} [s]
   * @returns {T | F}
   */
  call(fn, fallback, s) {
    if (this.#queue.length) this.flush();
    return this.callNow(fn, fallback, s);
  }

  /**
   * Calls `fn(core)` at once, before what is queued (see [`call`]).
   * @template T, F
   * @param {(core: Core) => T} fn
   * @param {F} [fallback]
   * @param {Stream | null} [s]
   * @returns {T | F}
   */
  callNow(fn, fallback, s) {
    // A stream of an older generation lived in a core that is gone: never call the new one for
    // it (its id could be another stream's there).
    if (s && s.gen !== generationOf()) return /** @type {F} */ (fallback);
    if (this.core !== null && this.#gen !== generationOf()) this.core = null;
    if (this.core === null) {
      this.core = createCore();
      this.#gen = generationOf();
      if (this.core) callCore(this.core, (c) => c.configure(this.#configure()));
      this.#framesSent = 0;
    }
    return callCore(this.core, fn, fallback);
  }

  /**
   * Hands the core the long frames it has not seen yet.
   * @param {import('../browser/longframes.js').LongFrames} frames
   */
  sendFrames(frames) {
    for (const f of frames.since(this.#framesSent)) {
      this.call((c) => c.long_frame(f.seq, f.start, f.duration, f.blockingDuration));
      this.#framesSent = f.seq;
    }
  }

  /**
   * A copy of `bytes` that stays valid whatever the app does with its buffer.
   * @param {Uint8Array} bytes
   */
  copy(bytes) {
    const n = bytes.byteLength;
    if (n > STAGE / 8) return bytes.slice();
    if (!this.#stage || this.#stageAt + n > STAGE) {
      this.#stage = new Uint8Array(STAGE);
      this.#stageAt = 0;
    }
    const at = this.#stageAt;
    this.#stage.set(bytes, at);
    this.#stageAt = at + n;
    return this.#stage.subarray(at, at + n);
  }

  /**
   * Queues `op`: a chunk `{ s, bytes, t, end }`, an append `{ s, text, from, t }` or a frame
   * `{ s: null, frame, cutoff, after, since }`.
   * @param {Op} op
   */
  defer(op) {
    const q = this.#queue;
    q.push(op);
    if (op.bytes) {
      this.#queuedBytes += op.bytes.byteLength;
      if (op.s.arrival) this.#stamped = true;
    }
    // A long queue is flushed in a microtask: never inside the app's own read.
    if (q.length >= MAX_QUEUE || this.#queuedBytes >= MAX_QUEUED_BYTES) {
      if (!this.#flushQueued) {
        this.#flushQueued = true;
        queueMicrotask(this.flushSoon);
      }
    } else if (!this.#flushTimer) {
      this.#flushTimer = 1;
      later(this.#onTimer);
    }
  }

  /**
   * Hands the queue to the core. A flush of the timer (`timed`) stops at a read whose arrival
   * stamp has not come yet, for STAMP_WAIT_MS at most, and goes on later; any other flush (before
   * a call into the core) takes everything, in order.
   */
  flush(timed = false) {
    // A flush that was asked for and is still to come finds the queue empty (or newer work).
    this.#flushQueued = false;
    let q = this.#queue;
    if (!q.length) return;
    this.#queue = [];
    this.#queuedBytes = 0;
    const clock = this.#arrival();
    // Only a read the arrival clock stamps can wait for its stamp: without the clock (the page
    // did not opt in, or its module has not loaded) nothing is looked for.
    const stamped = this.#stamped;
    this.#stamped = false;
    if (timed && stamped) q = this.#holdUnstamped(q, clock);
    for (const op of q) {
      const s = op.s;
      if (s === null) {
        this.callNow((c) => painted(c, op), 0);
      } else if (op.bytes) {
        this.#beforeChunk(s);
        const start = op.end - op.bytes.byteLength;
        const seen = s.arrival && clock ? op.seen || clock.seenIn(s.arrival, start, op.end) : null;
        this.callNow((c) => feedRead(c, s.id, op.bytes, op.t, seen, start), undefined, s);
      } else if (!s.done) {
        const r = this.callNow((c) => c.render(s.id, op.text, op.from, op.t), 0, s);
        s.committed(committedOf(r), op.t);
      }
    }
  }

  // The part of `q` to hand over now: up to a read whose arrival stamp has not reached the page
  // yet (the arrival clock's module, a chunk of its own, may still be on its way too); the rest
  // waits and is tried again shortly.
  /**
   * @param {Op[]} q
   * @param {ArrivalClock | null} clock
   */
  #holdUnstamped(q, clock) {
    const now = performance.now();
    const unseen = (/** @type {Op} */ op) => op.bytes && op.s && op.s.arrival && !(op.seen = clock && clock.seenIn(op.s.arrival, op.end - op.bytes.byteLength, op.end));
    const wait = q.findIndex((op) => unseen(op) && op.s !== null && now - op.t < STAMP_WAIT_MS);
    if (wait < 0) return q;
    this.#queue = q.slice(wait);
    this.#stamped = true;
    for (const op of this.#queue) if (op.bytes) this.#queuedBytes += op.bytes.byteLength;
    setTimeout(this.flushSoon, 50);
    return q.slice(0, wait);
  }
}
