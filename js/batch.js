// The batch: chunks, appended text and frames wait in one ordered queue and cross into the core
// together, once per FLUSH_MS (or when the queue is long, or before any other call into the
// core, which keeps the order): one warm pass through the core costs far less than one cold call
// per token. Chunks are copied when queued (stream.js), so an app that transfers or reuses its
// buffer loses nothing.

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

/** A copy of `bytes` that stays valid whatever the app does with its buffer. */
export function copyOf(p, bytes) {
  const n = bytes.byteLength;
  if (n > STAGE / 8) return bytes.slice();
  let st = p._stage;
  if (!st || p._stageAt + n > STAGE) {
    st = p._stage = new Uint8Array(STAGE);
    p._stageAt = 0;
  }
  const at = p._stageAt;
  st.set(bytes, at);
  p._stageAt = at + n;
  return st.subarray(at, at + n);
}

const idle = typeof requestIdleCallback === 'function';

/**
 * Runs `fn` FLUSH_MS from now, then as soon as the page is idle, and FLUSH_MS later at the
 * latest (requestIdleCallback's timeout; a timer alone where it is missing): the queue can wait
 * (its times were taken when things happened), the app's own work cannot. Not at background
 * priority with no deadline: on a page that is never idle the queue would then only cross when
 * full, in one long flush.
 */
function later(fn) {
  setTimeout(idle ? () => requestIdleCallback(fn, { timeout: FLUSH_MS }) : fn, FLUSH_MS);
}

export function defer(p, op) {
  const q = p._queue;
  q.push(op);
  if (op.bytes) p._queuedBytes += op.bytes.byteLength;
  // A long queue is flushed in a microtask: never inside the app's own read.
  if (q.length >= MAX_QUEUE || p._queuedBytes >= MAX_QUEUED_BYTES) {
    if (!p._flushQueued) {
      p._flushQueued = true;
      queueMicrotask(p._flushSoon);
    }
  } else if (!p._flushTimer) {
    p._flushTimer = 1;
    later(p._flushSoon);
  }
}

// A read the arrival clock stamped waits this long at most for the stamp to reach the page
// (a worker's message is a task of the page's, run after a long task as the read is).
const STAMP_WAIT_MS = 1000;

/**
 * Hands the queue to the core. A flush of the timer (`timed`) stops at a read whose arrival
 * stamp has not come yet, for STAMP_WAIT_MS at most, and goes on later; any other flush (before
 * a call into the core) takes everything, in order.
 */
export function flush(p, timed = false) {
  // A flush that was asked for and is still to come finds the queue empty (or newer work).
  p._flushTimer = 0;
  p._flushQueued = false;
  let q = p._queue;
  if (!q.length) return;
  p._queue = [];
  p._queuedBytes = 0;
  if (timed) {
    const now = performance.now();
    // The arrival clock's module (a chunk of its own, loaded when asked for) may still be on its
    // way: the worker's messages wait for it.
    const clock = p._arrival;
    const unseen = (op) => op.bytes && op.s && op.s.arrival && !(op.seen = clock && clock.seenIn(op.s.arrival, op.end - op.bytes.byteLength, op.end));
    const wait = q.findIndex((op) => unseen(op) && now - op.t < STAMP_WAIT_MS);
    if (wait >= 0) {
      p._queue = q.slice(wait);
      for (const op of p._queue) if (op.bytes) p._queuedBytes += op.bytes.byteLength;
      q = q.slice(0, wait);
      p._flushTimer = 1;
      setTimeout(p._flushSoon, 50);
    }
  }
  for (const op of q) {
    const s = op.s;
    if (s === null) {
      p._callNow((c) => c.painted(op.frame, op.cutoff, op.after, op.since), 0);
      continue;
    }
    if (op.bytes) {
      if (!s.scope && !s.target) p._rescanShadows();
      const start = op.end - op.bytes.byteLength;
      const seen = s.arrival && p._arrival ? op.seen || p._arrival.seenIn(s.arrival, start, op.end) : null;
      p._callNow((c) => feedRead(c, s.id, op.bytes, op.t, seen, start), undefined, s);
      continue;
    }
    if (s.done) continue;
    const n = p._callNow((c) => c.rendered(s.id, op.text, op.from, op.t), 0, s);
    if (n < 0) s.prevText = ''; // out of step: the next change reads the whole text
    if (n > 0) {
      s.lastCommit = op.t;
      if (s.ended) p._armSettle(s);
    }
  }
}
