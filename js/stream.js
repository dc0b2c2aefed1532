// The life of one stream: opened when its response arrives (or replayed once the module has
// loaded, for a stream that began before), its chunks noted by the tap, ended by the body, settled
// once its text is painted (or the page is quiet), then reported: the shell hands the core what
// only the browser knows, the core writes the report, and the listeners get it.

import { load, ready, failure, generationOf } from './core.js';
import { tap } from './tap.js';
import { whyUnseen } from './shadow.js';
import { entryStrings } from './resource.js';
import { metricsOf } from './ratings.js';
import { OBSERVE } from './claim.js';
import { feedRead, copyOf } from './batch.js';
import { IDLE_FRAMES } from './paint.js';
import { FAILED_NULL, HEADERS } from './schema.js';

// Chunks kept for a stream that started before the module loaded.
const MAX_EARLY = 4096;
const MAX_EARLY_BYTES = 4 * 1024 * 1024;

/** Whether a new stream is left out of the sample (`streamSampleRate`, one draw per stream). */
function leftOut(p) {
  return p.streamSampleRate < 1 && !(Math.random() < p.streamSampleRate);
}

export function wrap(p, res, o) {
  try {
    if (!res || !res.body) return res;
    // Passed through the opt-in arrival clock (js/arrival-sw.js): its stamps name the stream.
    const arrival = p.options.arrivalClock && res.headers && res.headers.get('x-tokenpaint-arrival');
    if (arrival) o = { ...o, arrival };
    const f = feed(p, res, o);
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
 * push handle): `chunk(bytes, t)`, `end(kind, t, message)` (kind 0 done, 1 aborted, 2 failed),
 * `discard()`. `res` gives the status and headers (a Response, or `{ status, headers }`). Null
 * when the core cannot open it. Before the module has loaded (a stream started right after the
 * page did), the chunks and the end are kept with their times and replayed once it is ready.
 */
export function feed(p, res, o) {
  // A stream left out of the sample (streamSampleRate): nothing is opened, nothing wrapped.
  if (leftOut(p)) return null;
  // The stub (lazy.js) hands over a stream that began before the profiler loaded, with the
  // time its headers came.
  const headersAt = typeof o.headersAt === 'number' ? o.headersAt : performance.now();
  // An answer on a socket whose request was not seen: its start is unknown (not the first
  // message's time), and so is everything measured from it.
  if (o.startUnknown) o = { ...o, start: NaN };
  let s = ready() ? p._open(res, o, headersAt) : undefined;
  if (s === null) return null;
  const early = [];
  let earlyBytes = 0;
  // Bytes read so far: where each chunk ends, for the arrival clock's stamps.
  let end = 0;
  if (s === undefined) {
    load().then(
      () => {
        if (s !== undefined) return;
        s = (ready() && p._open(res, o, headersAt)) || null;
        for (const [bytes, t, kind, message] of s ? early : []) {
          if (bytes) p._call((c) => feedRead(c, s.id, bytes, t), undefined, s);
          else p._end(s, kind, t, message);
        }
        early.length = 0;
        // Text the page showed in the meantime: read it now (its commits are late by the
        // wait, at most, and the report says so).
        if (s) p._catchUp(s);
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
      if (s) {
        s.lastActivity = t;
        // A copy: the app may transfer or reuse its buffer before the queue is flushed.
        p._defer({ s, bytes: copyOf(p, bytes), t, end });
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
      if (s) p._end(s, kind, t, message);
      else if (s === undefined) early.push([null, t, kind, message]);
    },
    discard() {
      if (s) p._discard(s);
      s = null;
      early.length = 0;
    },
    // Handed over late by the stub (its chunks replayed): the text the page showed meanwhile
    // is read now, and the report says those commits are late by the wait, at most.
    late() {
      if (s) p._catchUp(s);
    },
  };
}

// Opens the core's session for a response; null when the core cannot.
export function open(p, res, o, headersAt) {
  try {
    const contentType = (res.headers && res.headers.get('content-type')) || '';
    const format = o.format || p.options.format || 'auto';
    let hints = headerHints(res.headers);
    // The app's own mapping of its server's timings (headers it controls).
    if (typeof p.options.serverTiming === 'function') {
      try {
        hints += serverTimingLine(p.options.serverTiming(res));
      } catch {
        /* the app's mapping failed: go on without it */
      }
    }
    const id = p._call((c) => c.open(format, contentType, hints, o.url, o.start, headersAt, res.status), 0);
    if (!id) return null;
    const gen = generationOf();
    p._call((c) => c.describe(id, o.label || '', o.transport || '', o.resumedFrom || '', p.options.includeText === true, !!o.startUnknown));
    const s = {
      id,
      gen,
      transport: o.transport || 'fetch',
      url: o.url,
      fullUrl: o.fullUrl,
      // OpenTelemetry: the requested model, and the trace sent in `traceparent`, if any.
      trace: o.trace || null,
      start: o.start,
      headersAt,
      arrival: o.arrival || null,
      target: o.target,
      scope: null,
      prevText: '',
      ended: false,
      endedAt: 0,
      lastCommit: 0,
      timer: 0,
      mo: null,
      done: false,
    };
    s.lastActivity = performance.now();
    p._streams.add(s);
    if (p._progress.size) p._paint.request();
    p._resources.want(o.fullUrl);
    p._watchIdle();
    if (s.target && typeof MutationObserver === 'function') {
      s.mo = new MutationObserver((records) => p._onMutations(records, s.target, s));
      s.mo.observe(s.target, OBSERVE);
    }
    return s;
  } catch {
    return null;
  }
}

export function failedBeforeResponse(p, input, start, e) {
  if (leftOut(p)) return;
  const id = p._call((c) => c.open(p.options.format, '', '', urlOf(input, null), start, NaN, 0), 0);
  if (!id) return;
  const aborted = e && e.name === 'AbortError';
  p._call((c) => c.end(id, aborted ? 1 : 2, performance.now(), String((e && e.message) || e)));
  p._emit(id, { url: urlOf(input, null), start });
}

// A stream that nobody reads any more (the app stopped without cancelling) is reported as
// incomplete after `idleMs` without a chunk; its bytes keep flowing to the app untouched.
export function watchIdle(p) {
  if (p._idleTimer || !(p.options.idleMs > 0)) return;
  const every = Math.max(50, Math.min(5000, p.options.idleMs / 4));
  p._idleTimer = setInterval(() => {
    const now = performance.now();
    for (const s of [...p._streams]) {
      if (!s.ended && now - s.lastActivity > p.options.idleMs) p._finish(s);
    }
    if (p._streams.size === 0) {
      clearInterval(p._idleTimer);
      p._idleTimer = null;
    }
  }, every);
  // In Node, do not keep the process alive for it.
  if (p._idleTimer && typeof p._idleTimer.unref === 'function') p._idleTimer.unref();
}

export function onPaint(p, frame, cutoff, after, since) {
  // The frame waits in the queue with the commits before it. The clock keeps running while
  // the page keeps changing.
  const changed = p._changed;
  p._changed = false;
  // A frame the clock watches only for live progress (the page unchanged for IDLE_FRAMES) is
  // not handed to the core: the report sees the frames it would see with no subscriber, so
  // that watching never changes a figure (the share of late frames, above all).
  const watched = changed || p._quiet < IDLE_FRAMES;
  p._quiet = changed ? 0 : p._quiet + 1;
  // A frame after one the core did not see: without a subscriber the clock had rested, so the
  // time since that frame says nothing of the main thread.
  if (watched) p._defer({ s: null, frame, cutoff, after, since: p._watchedLast ? since : NaN });
  p._watchedLast = watched;
  // Live progress keeps the clock running while a stream is open, and is read at most every
  // PROGRESS_MS: enough to watch, and the batch still crosses into the core in few flushes.
  let live = false;
  if (p._progress.size > 0 && p._streams.size > 0) {
    live = true;
    if (!(after - p._progressAt < PROGRESS_MS)) {
      p._progressAt = after;
      progress(p, after);
    }
  }
  for (const s of p._streams) {
    if (s.ended) {
      for (const e of [...p._streams]) if (e.ended) p._checkSettled(e);
      break;
    }
  }
  return changed || live ? 1 : 0;
}

/** The shortest time between two progress deliveries (ms). */
export const PROGRESS_MS = 100;

const known = (x) => (typeof x === 'number' && !Number.isNaN(x) ? x : null);

/** Hands each open stream's figures so far to the progress subscribers; whether there was one. */
function progress(p, now) {
  p._progressFrames++;
  let any = false;
  for (const s of p._streams) {
    if (s.done) continue;
    let v = null;
    try {
      v = JSON.parse(p._call((c) => c.progress(s.id, now), '', s) || 'null');
    } catch {
      /* no figures for this frame */
    }
    if (!v || v.length < 6) continue;
    any = true;
    // What is on screen is known only where tokenpaint watches the page and can take paints:
    // elsewhere nothing painted is not zero painted.
    const seen = (s.target || p._roots.size > 0) && p._paint.available;
    const info = {
      id: s.id,
      url: s.url,
      t: known(now - s.start),
      arrived: v[0],
      painted: seen ? v[1] : null,
      backlog: seen ? v[0] - v[1] : null,
      ttft: known(v[2]),
      ttftPerceived: seen ? known(v[3]) : null,
      lag: seen ? known(v[4]) : null,
      waiting: seen ? v[5] : null,
      ended: !!s.ended,
    };
    for (const cb of [...p._progress]) {
      try {
        cb(info);
      } catch (e) {
        if (typeof reportError === 'function') reportError(e);
      }
    }
  }
  return any;
}

export function end(p, s, kind, t, message) {
  if (s.ended) return;
  s.ended = true;
  s.endKind = kind;
  s.endedAt = t;
  p._call((c) => c.end(s.id, kind, t, message || ''), undefined, s);
  p._checkSettled(s);
}

// A report is taken once the stream ended and all its text is painted, or once the page has
// been quiet for settleMs after the end (text never rendered, a hidden page), at most
// maxSettleMs after the end.
export function checkSettled(p, s) {
  if (s.done) return;
  const watched = s.target || p._roots.size > 0;
  if (!watched || p._call((c) => c.settled(s.id), true, s)) p._finish(s);
  else p._armSettle(s);
}

export function armSettle(p, s) {
  clearTimeout(s.timer);
  const quietUntil = Math.max(s.endedAt, s.lastCommit) + p.options.settleMs;
  const deadline = s.endedAt + p.options.maxSettleMs;
  const wait = Math.max(0, Math.min(quietUntil, deadline) - performance.now());
  s.timer = setTimeout(() => p._finish(s), wait);
}

// What only the browser can tell, handed to the core before the report is made: why the
// answer's element was not found, the request's Resource Timing entry (and from it the start
// of a tracked response), and the long animation frames seen since the last report.
export function beforeReport(p, s) {
  try {
    if (!s.scope && !s.lastCommit) {
      const roots = s.target ? [s.target] : [...p._roots.keys(), ...p._shadows.keys()];
      const reason = roots.length ? whyUnseen(roots) : 'not-observed';
      p._call((c) => c.dom_reason(s.id, reason), undefined, s);
    }
    const e = s.entry !== undefined ? s.entry : p._resources.find(s.fullUrl, s.start, s.endedAt, s.headersAt);
    if (e) {
      if (Number.isNaN(s.start)) {
        s.start = e.startTime;
        p._call((c) => c.set_start(s.id, e.startTime), undefined, s);
      }
      const args = [e.startTime, e.domainLookupStart, e.domainLookupEnd, e.connectStart, e.connectEnd, e.requestStart, e.responseStart, e.responseEnd];
      p._call((c) => c.resource(s.id, ...args), undefined, s);
    }
    for (const f of p._frames.since(p._framesSent)) {
      p._call((c) => c.long_frame(f.seq, f.start, f.duration, f.blockingDuration));
      p._framesSent = f.seq;
    }
  } catch {
    /* the report goes without */
  }
}

export function discard(p, s) {
  s.done = true;
  p._streams.delete(s);
  p._call((c) => c.finish(s.id, false), '', s);
}

export function finish(p, s) {
  if (s.done) return;
  s.done = true;
  clearTimeout(s.timer);
  if (s.arrival && p._arrival) p._arrival.forgetArrivals(s.arrival);
  if (s.mo) s.mo.disconnect();
  p._streams.delete(s);
  const emit = (entry) => {
    s.entry = entry;
    p._emit(s.id, s);
    p._resources.release(s.fullUrl, [...p._streams].some((o) => o.fullUrl === s.fullUrl));
  };
  // The Resource Timing entry comes in a task of its own after the body's end: a stream read
  // to its end waits for it, within a bound (a cancelled or failed one may never get one).
  const complete = s.ended && s.endKind === 0;
  const entry = p._resources.find(s.fullUrl, s.start, s.endedAt, s.headersAt);
  if (entry || !complete || !p._resources.observer || p._disconnecting) emit(entry);
  else p._resources.wait(s.fullUrl, s.start, s.endedAt, emit);
}

export function emit(p, id, s) {
  // Still hidden: what is not painted yet could not be.
  if (p._hiddenSince !== null) p._call((c) => c.hidden(p._hiddenSince, Infinity));
  if (s && s.gen !== undefined) p._beforeReport(s);
  const timeline = p.options.timeline !== false;
  const json = p._call((c) => c.finish(id, timeline), '', s && s.gen !== undefined ? s : null);
  let report = null;
  if (json) {
    try {
      report = JSON.parse(json);
    } catch {
      report = null;
    }
  }
  if (!report) {
    const reason = failure();
    if (!reason) return;
    // The core failed: say so rather than stay silent, with every figure unknown.
    report = { id, url: s.url, transport: s.transport, status: 'failed', error: { kind: 'internal', code: null, message: reason }, diagnosis: [], unavailable: ['report'] };
    for (const k of FAILED_NULL) report[k] = null;
    report.sampleRate = p._rate;
  } else {
    // The share of page loads profiled, so that figures merged from many pages can be weighed.
    report.sampleRate = p._rate;
    // The core decided every figure; the shell only puts back the browser's own strings it
    // kept (the scripts of long frames, the entry's protocol and Server-Timing).
    try {
      p._frames.expand(report.latePaints);
      if (report.resourceTiming) Object.assign(report.resourceTiming, entryStrings(s && s.entry));
    } catch {
      /* the figures stand without them */
    }
    // Exporters only read the report.
    try {
      if (p._measure) p._measure.then((measure) => measure(report)).catch(() => {});
      if (p._otlp) p._otlp.add(report, s && s.trace);
    } catch {
      /* an exporter's failure is not the report's */
    }
  }
  p._reports.push(report);
  if (p._reports.length > p.options.maxReports) p._reports.shift();
  for (const cb of [...p._listeners]) {
    try {
      cb(report);
    } catch (e) {
      // The callback is the app's code: report its error as the browser would, without
      // stopping the other callbacks.
      if (typeof reportError === 'function') reportError(e);
    }
  }
  if (p._metricListeners.size && report.status !== 'failed') {
    for (const m of metricsOf(report)) {
      for (const cb of [...p._metricListeners]) {
        try {
          cb(m);
        } catch (e) {
          if (typeof reportError === 'function') reportError(e);
        }
      }
    }
  }
}

// The response headers the core reads (js/schema.js, generated from src/read/mod.rs), as
// `name: value` lines. Only these are passed: nothing else leaves the page's JS objects.
function headerHints(headers) {
  if (!headers || typeof headers.get !== 'function') return '';
  let out = '';
  for (const name of HEADERS) {
    const v = headers.get(name);
    if (v !== null) out += `${name}: ${v}\n`;
  }
  return out;
}

/** `{ queue: 12, prefill: 80 }` (ms) → a Server-Timing line the core reads. */
function serverTimingLine(t) {
  if (!t || typeof t !== 'object') return '';
  const parts = [];
  for (const [name, dur] of Object.entries(t)) {
    if (/^[a-zA-Z]+$/.test(name) && Number.isFinite(dur)) parts.push(`${name};dur=${dur}`);
  }
  return parts.length ? `server-timing: ${parts.join(', ')}\n` : '';
}

/** The request URL in full, to find its Resource Timing entry (never put in a report). */
export function fullUrlOf(input, res) {
  let u = (res && res.url) || '';
  if (!u && input !== undefined && input !== null) u = typeof input === 'string' ? input : input.url || String(input);
  try {
    return new URL(u, globalThis.location ? globalThis.location.href : undefined).href;
  } catch {
    return u;
  }
}

// Reports name the endpoint, not its query string or fragment, which may carry keys or tokens.
export function urlOf(input, res) {
  let u = (res && res.url) || '';
  if (!u && input !== undefined && input !== null) {
    u = typeof input === 'string' ? input : input.url || String(input);
  }
  try {
    const parsed = new URL(u, globalThis.location ? globalThis.location.href : undefined);
    return parsed.origin + parsed.pathname;
  } catch {
    return String(u).split(/[?#]/)[0];
  }
}
