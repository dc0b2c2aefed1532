// tokenpaint/lazy: the stub a page imports to profile a sample of its loads, and to keep the
// profiler off the critical path.
//
//   import { start } from 'tokenpaint/lazy';
//   const profiler = start({ sampleRate: 0.05 });
//   profiler.observe(chat);
//   const res = await profiler.fetch(url, init);
//
// `start` draws once per page load. Unsampled, the profiler does nothing: no wasm, no observer,
// responses untouched, nothing more downloaded. Sampled, the profiler (its JS and the wasm) is
// imported once the page is idle, or at the first stream if that comes sooner. Calls made before
// are replayed in order. A fetch stream that began before has its chunks stamped here as they
// arrive and replayed; the text the page showed meanwhile is read when the profiler is there, and
// the report says those commits are late by the wait, at most.

import { rateOf, inSample, inert, whenIdle } from './sample.js';
import { tap } from './transports/tap.js';

// What one early stream may keep before the profiler is there; past it, it goes unprofiled.
const MAX_EARLY_BYTES = 4 * 1024 * 1024;

/** A profiler for this page load: sampled at `options.sampleRate`, loaded when it is needed. */
export function start(options) {
  const o = options || {};
  const rate = rateOf(o.sampleRate);
  const f = o.fetch || globalThis.fetch;
  const fetchFn = typeof f === 'function' ? f : null;
  return inSample(rate) ? lazy(o, rate, fetchFn) : inert({ sampleRate: rate }, fetchFn);
}

// The sampled stub: its state lives in this closure (a minifier shortens every name in it).
function lazy(options, rate, fetchFn) {
  /** @type {any} */
  let real = null;
  // The loaded profiler module's hand-over functions (profiler.js).
  /** @type {any} */
  let handover = null;
  let loading = false;
  let failed = false;
  let resolve;
  const ops = [];
  const now = (at) => (typeof at === 'number' ? at : performance.now());
  const load = () => {
    if (loading) return;
    loading = true;
    import('./profiler.js')
      .then(({ Profiler, adopt, sinkOf, failedEarly }) => {
        handover = { adopt, sinkOf, failedEarly };
        real = new Profiler(options);
        for (const op of ops.splice(0)) op(real);
        resolve(real);
      })
      .catch(() => {
        failed = true;
        ops.length = 0;
        resolve(null);
      });
  };
  // Runs `op(profiler)` now, or once the profiler is there.
  const later = (op) => {
    if (real) return op(real);
    if (!failed) ops.push(op);
  };
  // A method that returns an undo (onReport, onMetric, instrument), before or after the load.
  const undoable = (name, arg) => {
    if (real) return real[name](arg);
    /** @type {(() => void) | null} */
    let undo = null;
    let off = false;
    later((p) => {
      if (!off) undo = p[name](arg);
    });
    return () => {
      off = true;
      if (undo) undo();
    };
  };
  // A Response that came before the profiler: tapped here, handed over when it is there.
  const early = (res, o, input) => {
    if (real) return handover.adopt(real, res, o, input);
    if (failed || !res || !res.body) return res;
    const headersAt = performance.now();
    const rec = recorder();
    const out = tap(res, rec);
    if (out !== res) later((p) => rec.attach(handover.sinkOf(p, res, { ...o, headersAt }, input)));
    return out;
  };
  const fetchAs = async (input, init, label) => {
    if (real) return label === undefined ? real.fetch(input, init) : real.labeled(label)(input, init);
    if (!fetchFn) throw new TypeError('fetch is not available');
    load();
    const start = performance.now();
    let res;
    try {
      res = await fetchFn.call(globalThis, input, init);
    } catch (e) {
      later((p) => handover.failedEarly(p, input, start, e));
      throw e; // exactly what the app's own fetch would have thrown
    }
    return early(res, { start, label }, input);
  };
  const self = {
    sampled: true,
    sampleRate: rate,
    ready: new Promise((r) => (resolve = r)),
    fetch: (input, init) => fetchAs(input, init, undefined),
    labeled: (label) => (input, init) => fetchAs(input, init, String(label)),
    track(x, opts) {
      if (real) return real.track(x, opts);
      load();
      const o = opts || {};
      const start = now(o.start);
      if (typeof Response === 'function' && x instanceof Response) return early(x, { ...o, start: typeof o.start === 'number' ? start : NaN });
      // XHR, EventSource and sockets: their listeners are added once the profiler is there.
      later((p) => p.track(x, { ...o, start }));
      return x;
    },
    stream(opts) {
      if (real) return real.stream(opts);
      load();
      const o = { ...opts, start: performance.now() };
      const q = [];
      /** @type {any} */
      let h = null;
      later((p) => {
        h = p.stream(o);
        for (const [k, a, b] of q.splice(0)) h[k](a, b);
      });
      const put = (k, a, b) => (h ? h[k](a, b) : q.length < 4096 && q.push([k, a, b]));
      return {
        chunk: (d, at) => put('chunk', d && typeof d.slice === 'function' ? d.slice(0) : d, now(at)),
        end: (at) => put('end', now(at)),
        error: (e, at) => put('error', e, now(at)),
      };
    },
    instrument(opts) {
      load();
      return undoable('instrument', opts);
    },
    flush: () => self.ready.then((p) => p && p.flush()),
  };
  for (const k of ['onReport', 'onMetric', 'onProgress']) self[k] = (cb) => undoable(k, cb);
  // Replayed in order once the profiler is there.
  for (const k of ['observe', 'unobserve', 'disconnect', 'close']) self[k] = (el) => later((p) => p[k](el));
  // Nothing to tell before it is there (`await profiler.ready` first).
  for (const [k, none] of /** @type {Array<[string, unknown]>} */ ([['reports', []], ['summary', null], ['exportSummary', null], ['mergeSummary', false], ['print', '']])) {
    self[k] = (x) => (real ? real[k](x) : none);
  }
  whenIdle(load);
  return self;
}

/**
 * A sink that keeps chunks (with their times) until the profiler's own sink is attached, then
 * replays them into it and passes the rest straight through.
 */
function recorder() {
  /** @type {any[] | null} */
  let q = [];
  let bytes = 0;
  /** @type {any} */
  let sink = null;
  return {
    chunk(b, t) {
      if (sink) return sink.chunk(b, t);
      if (!q) return;
      bytes += b.byteLength;
      // Too much before the profiler came: unprofiled rather than partly profiled.
      if (bytes > MAX_EARLY_BYTES) q = null;
      else q.push([b.slice(), t]);
    },
    end(kind, t, message) {
      if (sink) sink.end(kind, t, message);
      else if (q) q.push([null, t, kind, message]);
    },
    attach(s) {
      if (!s) return void (q = null);
      if (!q) return s.discard();
      for (const [b, t, kind, message] of q) {
        if (b) s.chunk(b, t);
        else s.end(kind, t, message);
      }
      q = null;
      sink = s;
      s.late();
    },
  };
}
