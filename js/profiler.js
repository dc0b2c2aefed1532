// The public Profiler: a drop-in fetch, DOM observation, one report per finished stream.
//
// Data flows one way: the tap stamps body chunks (tap.js), the MutationObserver stamps DOM
// commits (claim.js), the paint clock stamps frames (paint.js); all of it waits in one queue
// (batch.js) and goes into the wasm core, which owns the timeline and writes the report; a
// stream's life, from its response to its report, is stream.js. This file is the public API and
// the state those rooms share. Every call into the core is guarded (core.js): whatever happens
// inside tokenpaint, the app's fetch, body and DOM behave exactly as without it.

import { load, createCore, call as callCore, generationOf } from './core.js';
import { PaintClock, timerResolution } from './paint.js';
import { LongFrames } from './longframes.js';
import { THRESHOLDS, sloSpec, thresholdSpec } from './ratings.js';
import { ResourceEntries } from './resource.js';
import { summaryText, devtoolsTracks } from './devtools.js';
import * as batch from './batch.js';
import * as claim from './claim.js';
import * as stream from './stream.js';
import { OBSERVE } from './claim.js';
import { urlOf, fullUrlOf } from './stream.js';
import { modelOf } from './model.js';
import { pushHandle, tapXhr, tapEventSource } from './transports.js';
import { tapSocket, tapSocketIo } from './sockets.js';
import { instrument } from './instrument.js';
import { rateOf, inSample, inert, whenIdle } from './sample.js';

/** Default options. */
export const DEFAULTS = Object.freeze({
  format: 'auto',
  settleMs: 1000,
  maxSettleMs: 30000,
  timeline: true,
  maxReports: 1000,
  includeText: false,
  stallMs: 100,
  maxTokenDetail: 8192,
  lateMs: 50,
  label: '',
  slo: null,
  serverTiming: null,
  thresholds: THRESHOLDS,
  devtools: false,
  otlp: null,
  idleMs: 120000,
  sampleRate: 1,
  streamSampleRate: 1,
});


export class Profiler {
  constructor(options) {
    const o = { ...DEFAULTS, ...(options || {}) };
    this.options = o;
    const f = o.fetch || globalThis.fetch;
    this._fetch = typeof f === 'function' ? f : null;
    // Sampling, once per page load: an unsampled page loads no wasm, makes no observer and
    // wraps nothing; every method is there and does nothing.
    this.sampleRate = rateOf(o.sampleRate);
    this.streamSampleRate = rateOf(o.streamSampleRate);
    this.sampled = inSample(this.sampleRate);
    if (!this.sampled) {
      inert(this, this._fetch);
      return;
    }
    this.ready = Promise.resolve(this);
    // Streams of a sampled page can be sampled too, each drawn on its own; a stream left out
    // is not wrapped (the app gets its own response) and makes no report. Reports and the
    // summary carry the share of streams profiled: both rates multiplied.
    this._rate = this.sampleRate * this.streamSampleRate;
    this._streams = new Set();
    this._queue = [];
    this._queuedBytes = 0;
    this._flushQueued = false;
    this._flushTimer = 0;
    this._changed = false;
    this._flushSoon = () => {
      try {
        batch.flush(this, true);
      } catch {
        /* never into the page */
      }
    };
    this._reports = [];
    this._listeners = new Set();
    this._metricListeners = new Set();
    // Live progress (onProgress): subscribers, and frames that delivered some (0 without any).
    this._progress = new Set();
    this._progressFrames = 0;
    this._progressAt = -Infinity;
    // Frames since the page last changed (the paint clock's idle count).
    this._quiet = Infinity;
    this._watchedLast = false;
    this._roots = new Map();
    // Open shadow roots found inside observed elements: shadow root → { mo, owner }.
    this._shadows = new Map();
    this._lastShadowScan = 0;
    this._closed = false;
    this._paint = new PaintClock((frame, cutoff, after, since) => this._onPaint(frame, cutoff, after, since));
    // Bound, so that `fetch: profiler.fetch` can be handed to an SDK.
    this.fetch = (input, init) => this._profiledFetch(input, init, this.options.label);
    this.track = this.track.bind(this);
    this.stream = this.stream.bind(this);
    this.instrument = this.instrument.bind(this);
    this._core = null;
    this._frames = new LongFrames();
    this._framesSent = 0; // long frames handed to the core, by number
    this._resources = new ResourceEntries();
    // Hidden intervals: nothing paints while the page is hidden, so those samples are not lag.
    this._hidden = [];
    this._hiddenSince = null;
    this._onVisibility = () => this._visibility();
    this._listening = false;
    this._listen();
    this._otlp = null;
    // OpenTelemetry: the page's own SDK when it has one, else the OTLP exporter to `url`.
    if (o.otlp && typeof o.otlp === 'object' && (o.otlp.url || o.otlp.useGlobal !== false)) {
      try {
        this._otlp = new LazyExporter(o.otlp);
      } catch {
        this._otlp = null;
      }
    }
    // The opt-in arrival clock (a service worker the app registered, js/arrival-sw.js): a chunk
    // of its own. Until it has loaded, the worker's messages wait (startMessages), and so do
    // the reads it stamped (batch.js).
    this._arrival = null;
    if (o.arrivalClock) {
      import('./arrival.js')
        .then((m) => {
          if (m.listenForArrivals()) this._arrival = m;
        })
        .catch(() => {});
    }
    // The DevTools track: a chunk of its own, imported only when asked for.
    this._measure = o.devtools ? import('./perftrack.js').then((m) => m.measure) : null;
    // The wasm is fetched and compiled (streaming) off the critical path: once the page is idle,
    // or at the first stream if that comes first (stream.js); `await init()` loads it at once.
    whenIdle(() => load().catch(() => {}));
  }

  // For the lazy stub (lazy.js): the sink of a stream that began before this profiler was
  // loaded; `input` is what the app fetched (undefined for a tracked Response).
  _sink(res, o, input) {
    return stream.feed(this, res, this._early(res, o, input));
  }

  // The same, for a Response that came after this profiler was there: wrapped as usual.
  _adopt(res, o, input) {
    return this._wrap(res, this._early(res, o, input));
  }

  _early(res, o, input) {
    const url = o.url !== undefined ? o.url : input;
    return { ...o, target: o.target || null, label: o.label !== undefined ? String(o.label) : this.options.label, url: urlOf(url, res), fullUrl: fullUrlOf(url, res) };
  }

  /** Sends what the OTLP exporter has batched now; resolves when sent. */
  flush() {
    return this._otlp ? this._otlp.flush() : Promise.resolve();
  }

  // Page visibility is watched while the profiler is connected.
  _listen() {
    if (this._listening || typeof document === 'undefined' || !document.addEventListener) return;
    if (document.visibilityState === 'hidden' && this._hiddenSince === null) this._hiddenSince = performance.now();
    document.addEventListener('visibilitychange', this._onVisibility);
    this._listening = true;
  }

  _visibility() {
    try {
      const t = performance.now();
      if (document.visibilityState === 'hidden') {
        if (this._hiddenSince === null) this._hiddenSince = t;
      } else if (this._hiddenSince !== null) {
        const since = this._hiddenSince;
        this._hiddenSince = null;
        this._hidden.push([since, t]);
        if (this._hidden.length > 64) this._hidden.shift();
        this._call((c) => c.hidden(since, t));
      }
    } catch {
      /* never into the page */
    }
  }

  _defer(op) {
    return batch.defer(this, op);
  }

  _flush() {
    return batch.flush(this);
  }

  // Each profiler has its own core (its own streams and summary), made once the module is ready.
  _call(fn, fallback, s) {
    if (this._queue.length) this._flush();
    return this._callNow(fn, fallback, s);
  }

  _callNow(fn, fallback, s) {
    // A stream of an older generation lived in a core that is gone: never call the new one for
    // it (its id could be another stream's there).
    if (s && s.gen !== generationOf()) return fallback;
    if (this._core !== null && this._coreGen !== generationOf()) this._core = null;
    if (this._core === null) {
      this._core = createCore();
      this._coreGen = generationOf();
      const { stallMs, maxTokenDetail } = this.options;
      const stall = typeof stallMs === 'number' ? stallMs : 100;
      const detail = Number.isInteger(maxTokenDetail) && maxTokenDetail > 0 ? maxTokenDetail : 0;
      // What this engine gives, and how figures are rated: the core writes the whole report.
      const late = Number.isFinite(this.options.lateMs) ? this.options.lateMs : 50;
      const args = [stall, Math.min(detail, 2 ** 31), sloSpec(this.options.slo) || '', late, this._frames.supported, this._paint.available];
      args.push(thresholdSpec(this.options.thresholds), timerResolution(), !!this._measure && !devtoolsTracks(), this._rate);
      if (this._core) callCore(this._core, (c) => c.configure(...args));
      this._framesSent = 0;
    }
    return callCore(this._core, fn, fallback);
  }

  /**
   * Watches `element`, the element in which the app renders answers, and the open shadow roots
   * inside it. `observe`, `unobserve` and `disconnect` may come in any order, any number of
   * times (React StrictMode, hot reload, route changes): observing again resumes everything.
   */
  observe(element) {
    if (this._closed || !element || this._roots.has(element) || typeof MutationObserver !== 'function') return;
    try {
      const mo = new MutationObserver((records) => this._onMutations(records, element, null));
      mo.observe(element, OBSERVE);
      this._roots.set(element, mo);
      this._frames.connect();
      this._listen();
      this._findShadows(element, element);
    } catch {
      /* never into the page */
    }
  }

  /** Stops watching `element` (and the shadow roots found in it). */
  unobserve(element) {
    const mo = this._roots.get(element);
    if (mo) mo.disconnect();
    this._roots.delete(element);
    for (const [root, w] of this._shadows) {
      if (w.owner === element) {
        w.mo.disconnect();
        this._shadows.delete(root);
      }
    }
  }

  _findShadows(node, owner) {
    return claim.findShadows(this, node, owner);
  }

  _rescanShadows() {
    return claim.rescanShadows(this);
  }

  /**
   * Profiles an answer received by other means: a fetch `Response` (returns the response the
   * app must read: the original body can only be read once), or an `XMLHttpRequest` (before
   * its `send()`), an `EventSource`, a `WebSocket` or a socket.io-client `Socket` (right after
   * it is made), which are returned as they are, with listeners added. `options.target`: the element that will show
   * it; `options.start`: when the request started (performance.now()); without it, the start
   * is taken from the request's Resource Timing entry when the report is made. For sockets,
   * `options.extract(message) → { id, text | delta, done }` reads a protocol other than OpenAI
   * chunk JSON per message.
   */
  track(response, options) {
    const o = options || {};
    const label = o.label !== undefined ? String(o.label) : this.options.label;
    const base = { target: o.target || null, format: o.format, label, extract: o.extract, events: o.events };
    const kind = transportOf(response);
    if (kind) {
      try {
        const url = o.url || (kind === 'xhr' ? response.responseURL : kind === 'socket.io' ? response.io && response.io.uri : response.url);
        const at = typeof o.start === 'number' ? o.start : performance.now();
        const taps = { xhr: tapXhr, eventsource: tapEventSource, websocket: tapSocket, 'socket.io': tapSocketIo };
        taps[kind](this, response, { ...base, start: at, url: urlOf(url, null), fullUrl: fullUrlOf(url, null) });
      } catch {
        /* unprofiled, unchanged */
      }
      return response;
    }
    return this._wrap(response, {
      ...base,
      // Unknown: the core stands the headers' arrival in for it until Resource Timing tells.
      start: typeof o.start === 'number' ? o.start : NaN,
      url: urlOf(undefined, response),
      fullUrl: response && response.url,
    });
  }

  /**
   * A handle for any other transport (a worker, a BroadcastChannel, a gRPC-web client):
   * `chunk(bytesOrText)` as the answer's bytes arrive, then `end()` or `error(e)`. Options as
   * for `track`, plus `url` and `contentType` (what the chunks are; text/event-stream unless
   * told, `text/plain` for plain answer text).
   */
  stream(options) {
    const o = options || {};
    const label = o.label !== undefined ? String(o.label) : this.options.label;
    const url = o.url || '';
    return pushHandle(this, { start: typeof o.start === 'number' ? o.start : performance.now(), url: url && urlOf(url, null), fullUrl: url && fullUrlOf(url, null), target: o.target || null, format: o.format, label, contentType: o.contentType });
  }

  /**
   * Profiles every fetch, XMLHttpRequest, EventSource and WebSocket whose URL matches
   * `options.match` (a string it contains, a RegExp, or a function; everything without it).
   * Returns a function that undoes it. Options as for `track`.
   */
  instrument(options) {
    try {
      return instrument(this, options || {});
    } catch {
      return () => {};
    }
  }

  /** A fetch whose streams carry `label` (summaries group by it): `fetch: profiler.labeled('gpt-4o')`. */
  labeled(label) {
    return (input, init) => this._profiledFetch(input, init, String(label));
  }

  /**
   * Calls `callback(metric)` for each headline metric of each finished stream, web-vitals
   * style: `{ name, value, rating, id, attribution }`. Returns a function that unsubscribes.
   */
  /**
   * Calls `callback` for each stream still open, with its figures so far (from the records its
   * report will be made of), after a painted frame, every 100 ms at most. Returns an unsubscribe
   * function. Nothing is done for it without a subscriber.
   */
  onProgress(callback) {
    if (typeof callback !== 'function') return () => {};
    this._progress.add(callback);
    if (this._streams.size) this._paint.request();
    return () => this._progress.delete(callback);
  }

  onMetric(callback) {
    if (typeof callback !== 'function') return () => {};
    this._metricListeners.add(callback);
    return () => this._metricListeners.delete(callback);
  }

  /** The summary in a compact form that `mergeSummary` (in another tab, page or user) reads. */
  exportSummary() {
    return this._call((c) => c.export_summary(), null);
  }

  /** Merges an exported summary into this profiler's; false if it could not be read. */
  mergeSummary(exported) {
    if (typeof exported !== 'string') return false;
    return this._call((c) => c.merge_summary(exported), false);
  }

  /** Calls `callback(report)` once per finished stream; returns a function that unsubscribes. */
  onReport(callback) {
    if (typeof callback !== 'function') return () => {};
    this._listeners.add(callback);
    return () => this._listeners.delete(callback);
  }

  /** The reports of finished streams, oldest first (at most `maxReports`). */
  reports() {
    return this._reports.slice();
  }

  /** Percentiles over finished streams, or null when the core is not available. */
  summary() {
    const json = this._call((c) => c.summary(), '');
    if (!json) return null;
    try {
      return JSON.parse(json);
    } catch {
      return null;
    }
  }

  /** Logs the last report and the summary to the console; returns the text. */
  print() {
    try {
      const text = summaryText(this._reports[this._reports.length - 1], this.summary());
      if (text) console.log(text);
      return text;
    } catch {
      return '';
    }
  }

  /**
   * Stops observing every element; streams still open are reported with what was measured.
   * `observe` later resumes (a React effect's cleanup may call this; StrictMode runs the effect
   * twice).
   */
  disconnect() {
    this._disconnecting = true;
    this._flushSoon();
    for (const mo of this._roots.values()) mo.disconnect();
    this._roots.clear();
    for (const w of this._shadows.values()) w.mo.disconnect();
    this._shadows.clear();
    for (const s of [...this._streams]) this._finish(s);
    this._paint.stop();
    this._frames.disconnect();
    if (this._idleTimer) clearInterval(this._idleTimer);
    this._idleTimer = null;
    if (this._otlp) this._otlp.flush();
    if (this._listening && typeof document !== 'undefined' && document.removeEventListener) {
      document.removeEventListener('visibilitychange', this._onVisibility);
      this._listening = false;
    }
    this._disconnecting = false;
  }

  /** Disconnects for good: the profiler observes nothing more and its exporter is closed. */
  close() {
    this.disconnect();
    this._closed = true;
    this._paint.close();
    this._resources.disconnect();
    if (this._otlp) this._otlp.close();
  }

  async _profiledFetch(input, init, label, fetchFn) {
    const f = fetchFn || this._fetch;
    if (!f) throw new TypeError('fetch is not available');
    const start = performance.now();
    // The requested model, and for the URLs the app chose (otlp.propagate), trace context.
    const trace = this._otlp ? this._otlp.begin(fullUrlOf(input, null), init && init.body, start) : null;
    if (trace && trace.headers) [input, init] = this._otlp.withHeaders(input, init, trace.headers);
    let res;
    try {
      res = await f.call(globalThis, input, init);
    } catch (e) {
      if (trace && trace.span) {
        trace.span.setStatus({ code: 2, message: 'network' });
        trace.span.end();
      }
      this._failedBeforeResponse(input, start, e);
      throw e; // exactly what the app's own fetch would have thrown
    }
    return this._wrap(res, { start, url: urlOf(input, res), fullUrl: fullUrlOf(input, res), target: null, format: undefined, label, trace });
  }

  _wrap(res, o) {
    return stream.wrap(this, res, o);
  }

  _catchUp(s) {
    return claim.catchUp(this, s);
  }

  _open(res, o, headersAt) {
    return stream.open(this, res, o, headersAt);
  }

  _failedBeforeResponse(input, start, e) {
    return stream.failedBeforeResponse(this, input, start, e);
  }

  _onMutations(records, root, only, at) {
    return claim.onMutations(this, records, root, only, at);
  }

  _watchIdle() {
    return stream.watchIdle(this);
  }

  _claimedByOther(el, s) {
    return claim.claimedByOther(this, el, s);
  }

  _read(s, el, t, records) {
    return claim.read(this, s, el, t, records);
  }

  _onPaint(frame, cutoff, after, since) {
    return stream.onPaint(this, frame, cutoff, after, since);
  }

  _end(s, kind, t, message) {
    return stream.end(this, s, kind, t, message);
  }

  _checkSettled(s) {
    return stream.checkSettled(this, s);
  }

  _armSettle(s) {
    return stream.armSettle(this, s);
  }

  _beforeReport(s) {
    return stream.beforeReport(this, s);
  }

  _discard(s) {
    return stream.discard(this, s);
  }

  _finish(s) {
    return stream.finish(this, s);
  }

  _emit(id, s) {
    return stream.emit(this, id, s);
  }
}

/**
 * The OTLP exporter (`otlp.js`), imported only when the `otlp` option is set: bundlers make it a
 * chunk of its own, which pages without OTLP never download. Reports that end before it has
 * loaded are kept (up to 1,000) and handed over; a flush or close asked for meanwhile happens once
 * it is there.
 */
class LazyExporter {
  constructor(options) {
    this.options = options;
    this.pending = [];
    this.real = null;
    this.otel = null;
    this.closed = false;
    this.ready = import('./otlp.js')
      .then(({ sinkFor, otel }) => {
        this.otel = otel;
        // Neither a page SDK nor a URL: nothing to export to.
        this.real = sinkFor(options) || { add() {}, flush: () => Promise.resolve(), close() {} };
        for (const [report, trace] of this.pending.splice(0)) this.real.add(report, trace);
        if (this.closed) {
          this.real.flush();
          this.real.close();
        }
      })
      .catch(() => {});
  }

  /**
   * A request leaving: its model and, for the URLs of `propagate`, trace context (otel.js). A
   * request made before the chunk has loaded (the first moments of the page) has no trace
   * context.
   */
  begin(url, body, start) {
    if (this.otel) return this.otel.begin(this.options, url, body, start);
    // The requested model (gen_ai.request.model) is read from the body all the same.
    const model = modelOf(body);
    return model ? { model } : null;
  }

  withHeaders(input, init, headers) {
    return this.otel.withHeaders(input, init, headers);
  }

  add(report, trace) {
    if (this.real) this.real.add(report, trace);
    else if (this.pending.length < 1000) this.pending.push([report, trace]);
  }

  flush() {
    if (this.real) return this.real.flush();
    // Not loaded yet: the flush happens on load (or, once closed, as the load closes it).
    return this.ready.then(() => (this.real && !this.closed ? this.real.flush() : undefined));
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.real) this.real.close();
  }
}

/** Which non-fetch transport object `x` is, if any. */
function transportOf(x) {
  const g = globalThis;
  if (!x || typeof x !== 'object') return null;
  if (typeof g.XMLHttpRequest === 'function' && x instanceof g.XMLHttpRequest) return 'xhr';
  if (typeof g.EventSource === 'function' && x instanceof g.EventSource) return 'eventsource';
  if (typeof g.WebSocket === 'function' && x instanceof g.WebSocket) return 'websocket';
  // A socket.io-client Socket (duck-typed: tokenpaint does not load Socket.IO).
  if (typeof x.onAny === 'function' && typeof x.emit === 'function' && x.io) return 'socket.io';
  return null;
}
