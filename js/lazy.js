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

/**
 * A profiler for this page load: sampled at `options.sampleRate`, loaded when it is needed.
 * @param {import('./index.js').ProfilerOptions} [options]
 */
export function start(options) {
  /** @type {import('./index.js').ProfilerOptions} */
  const o = options || {};
  const rate = rateOf(o.sampleRate);
  const f = o.fetch || globalThis.fetch;
  const fetchFn = typeof f === 'function' ? f : null;
  return inSample(rate) ? lazy(o, rate, fetchFn) : inert({ sampleRate: rate }, fetchFn);
}

/**
 * The sampled stub. Its methods are the Profiler's, called by name (`real[name]`): the profiler
 * is `any` here.
 * @param {import('./index.js').ProfilerOptions} options
 * @param {number} rate
 * @param {typeof fetch | null} fetchFn
 */
// long-function: the stub's state lives in this one closure, where a minifier shortens every name (the 2 KB budget); a quarter of its lines are JSDoc types.
function lazy(options, rate, fetchFn) {
  /** @type {any} */
  let real = null;
  // The loaded profiler module's hand-over functions (profiler.js).
  /** @type {any} */
  let handover = null;
  let loading = false;
  let failed = false;
  /** @type {(profiler: unknown) => void} */
  let resolve;
  /** @type {Array<(p: any) => void>} */
  const ops = [];
  const now = (/** @type {unknown} */ at) => (typeof at === 'number' ? at : performance.now());
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
  const later = (/** @type {(p: any) => unknown} */ op) => {
    if (real) return op(real);
    if (!failed) ops.push(op);
  };
  // A method that returns an undo (onReport, onMetric, instrument), before or after the load.
  const undoable = (/** @type {string} */ name, /** @type {unknown} */ arg) => {
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
  /**
   * @param {Response} res
   * @param {{ start: number, label?: string }} o
   * @param {RequestInfo | URL} [input]
   */
  const early = (res, o, input) => {
    if (real) return handover.adopt(real, res, o, input);
    if (failed || !res || !res.body) return res;
    const headersAt = performance.now();
    const rec = recorder();
    const out = tap(res, rec);
    if (out !== res) later((p) => rec.attach(handover.sinkOf(p, res, { ...o, headersAt }, input)));
    return out;
  };
  /**
   * @param {RequestInfo | URL} input
   * @param {RequestInit | undefined} init
   * @param {string | undefined} label
   */
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
  /** @type {Record<string, any>} */
  const self = {
    sampled: true,
    sampleRate: rate,
    ready: new Promise((r) => (resolve = r)),
    fetch: (/** @type {RequestInfo | URL} */ input, /** @type {RequestInit} [init] */ init) => fetchAs(input, init, undefined),
    labeled: (/** @type {string} */ label) => (/** @type {RequestInfo | URL} */ input, /** @type {RequestInit} [init] */ init) => fetchAs(input, init, String(label)),
    /**
     * @param {any} x
     * @param {any} [opts]
     */
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
    /** @param {import('./index.js').PushOptions} [opts] */
    stream(opts) {
      if (real) return real.stream(opts);
      load();
      const o = { ...opts, start: performance.now() };
      /** @type {Array<[string, unknown, unknown]>} */
      const q = [];
      /** @type {any} */
      let h = null;
      later((p) => {
        h = p.stream(o);
        for (const [k, a, b] of q.splice(0)) h[k](a, b);
      });
      /**
       * @param {string} k
       * @param {unknown} a
       * @param {unknown} [b]
       */
      const put = (k, a, b) => (h ? h[k](a, b) : q.length < 4096 && q.push([k, a, b]));
      return {
        chunk: (/** @type {any} */ d, /** @type {number} [at] */ at) => put('chunk', d && typeof d.slice === 'function' ? d.slice(0) : d, now(at)),
        end: (/** @type {number} [at] */ at) => put('end', now(at)),
        error: (/** @type {unknown} */ e, /** @type {number} [at] */ at) => put('error', e, now(at)),
      };
    },
    /** @param {import('./index.js').InstrumentOptions} [opts] */
    instrument(opts) {
      load();
      return undoable('instrument', opts);
    },
    flush: () => self.ready.then((/** @type {any} */ p) => p && p.flush()),
  };
  for (const k of ['onReport', 'onMetric', 'onProgress']) self[k] = (/** @type {unknown} */ cb) => undoable(k, cb);
  // Replayed in order once the profiler is there.
  for (const k of ['observe', 'unobserve', 'disconnect', 'close']) self[k] = (/** @type {unknown} */ el) => later((p) => p[k](el));
  // Nothing to tell before it is there (`await profiler.ready` first).
  for (const [k, none] of /** @type {Array<[string, unknown]>} */ ([['reports', []], ['summary', null], ['exportSummary', null], ['mergeSummary', false], ['print', '']])) {
    self[k] = (/** @type {unknown} */ x) => (real ? real[k](x) : none);
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
    /**
     * @param {Uint8Array} b
     * @param {number} t
     */
    chunk(b, t) {
      if (sink) return sink.chunk(b, t);
      if (!q) return;
      bytes += b.byteLength;
      // Too much before the profiler came: unprofiled rather than partly profiled.
      if (bytes > MAX_EARLY_BYTES) q = null;
      else q.push([b.slice(), t]);
    },
    /**
     * @param {number} kind
     * @param {number} t
     * @param {string} message
     */
    end(kind, t, message) {
      if (sink) sink.end(kind, t, message);
      else if (q) q.push([null, t, kind, message]);
    },
    /** @param {import('./core/stream.js').Sink | null} s */
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
