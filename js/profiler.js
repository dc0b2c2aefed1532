// The public Profiler: a drop-in fetch, DOM observation, one report per finished stream. This
// file is the public API and nothing else: the profiler's inside is a Hub (core/hub.js), whose
// parts each own their state.

import { Hub } from './core/hub.js';
import { urlOf, fullUrlOf } from './core/url.js';
import { summaryText } from './export/devtools.js';
import { DEFAULTS } from './options.js';
import { withFixes } from './verdicts.js';
import { pushHandle, tapXhr, tapEventSource } from './transports/transports.js';
import { tapSocket, tapSocketIo } from './transports/sockets.js';
import { instrument } from './transports/instrument.js';
import { rateOf, inSample, inert } from './sample.js';

export { DEFAULTS };

/** @typedef {import('./index.js').TrackOptions & import('./index.js').TransportOptions & import('./index.js').PushOptions} AnyOptions */

// Each profiler's inside, out of the public object's reach.
/** @type {WeakMap<object, Hub>} */
const hubs = new WeakMap();

/**
 * The inside of a sampled profiler (an unsampled one's methods never ask: see `inert`).
 * @param {object} p
 */
const hubOf = (p) => /** @type {Hub} */ (hubs.get(p));

export class Profiler {
  /** @param {import('./index.js').ProfilerOptions} [options] */
  constructor(options) {
    const o = { ...DEFAULTS, ...(options || {}) };
    this.options = o;
    const f = o.fetch || globalThis.fetch;
    const fetchFn = typeof f === 'function' ? f : null;
    // Sampling, once per page load: an unsampled page loads no wasm, makes no observer and
    // wraps nothing; every method is there and does nothing.
    this.sampleRate = rateOf(o.sampleRate);
    this.streamSampleRate = rateOf(o.streamSampleRate);
    this.sampled = inSample(this.sampleRate);
    if (!this.sampled) {
      inert(/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (this)), fetchFn);
      return;
    }
    /** @type {Promise<Profiler | null>} */
    this.ready = Promise.resolve(this);
    // Streams of a sampled page can be sampled too, each drawn on its own; a stream left out
    // is not wrapped (the app gets its own response) and makes no report. Reports and the
    // summary carry the share of streams profiled: both rates multiplied.
    const hub = new Hub(o, this.sampleRate * this.streamSampleRate, this.streamSampleRate, fetchFn);
    hubs.set(this, hub);
    // Bound, so that `fetch: profiler.fetch` can be handed to an SDK.
    /** @type {typeof fetch} */
    this.fetch = (input, init) => profiledFetch(hub, input, init, o.label);
    this.track = this.track.bind(this);
    this.stream = this.stream.bind(this);
    this.instrument = this.instrument.bind(this);
  }

  /** Sends what the OTLP exporter has batched now; resolves when sent. */
  flush() {
    const hub = hubOf(this);
    return hub.otlp ? hub.otlp.flush() : Promise.resolve();
  }

  /**
   * Watches `element`, the element in which the app renders answers, and the open shadow roots
   * inside it. `observe`, `unobserve` and `disconnect` may come in any order, any number of
   * times (React StrictMode, hot reload, route changes): observing again resumes everything.
   * With no element (or `document`), the whole document is watched, open shadow roots included,
   * and each stream's element is found around the changes (browser/find.js).
   * @param {Element | Document} [element]
   */
  observe(element) {
    try {
      hubOf(this).observe(/** @type {Element} */ (element === undefined ? document : element));
    } catch {
      /* never into the page */
    }
  }

  /**
   * Stops watching `element` (and the shadow roots found in it).
   * @param {Element | Document} [element]
   */
  unobserve(element) {
    hubOf(this).watch.unobserve(/** @type {Element} */ (element === undefined ? document : element));
  }

  /**
   * Profiles an answer received by other means: a fetch `Response` (returns the response the
   * app must read: the original body can only be read once), or an `XMLHttpRequest` (before
   * its `send()`), an `EventSource`, a `WebSocket` or a socket.io-client `Socket` (right after
   * it is made), which are returned as they are, with listeners added. `options.target`: the
   * element that will show it; `options.start`: when the request started (performance.now());
   * without it, the start is taken from the request's Resource Timing entry when the report is
   * made. For sockets, `options.extract(message) → { id, text | delta, done }` reads a protocol
   * other than OpenAI chunk JSON per message.
   * @param {any} response a Response, XMLHttpRequest, EventSource, WebSocket or Socket.IO socket
   * @param {AnyOptions} [options]
   */
  track(response, options) {
    const hub = hubOf(this);
    /** @type {AnyOptions} */
    const o = options || {};
    const label = o.label !== undefined ? String(o.label) : this.options.label;
    const base = { target: o.target || null, format: o.format, label, extract: o.extract, events: o.events };
    const kind = transportOf(response);
    if (kind) {
      try {
        const url = o.url || (kind === 'xhr' ? response.responseURL : kind === 'socket.io' ? response.io && response.io.uri : response.url);
        const at = typeof o.start === 'number' ? o.start : performance.now();
        /** @type {Record<string, (p: Hub, x: any, o: any) => void>} */
        const taps = { xhr: tapXhr, eventsource: tapEventSource, websocket: tapSocket, 'socket.io': tapSocketIo };
        taps[kind](hub, response, { ...base, start: at, url: urlOf(url, null), fullUrl: fullUrlOf(url, null) });
      } catch {
        /* unprofiled, unchanged */
      }
      return response;
    }
    return hub.wrap(response, {
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
   * @param {import('./index.js').PushOptions} [options]
   */
  stream(options) {
    /** @type {AnyOptions} */
    const o = options || {};
    const label = o.label !== undefined ? String(o.label) : this.options.label;
    const url = o.url || '';
    return pushHandle(hubOf(this), { start: typeof o.start === 'number' ? o.start : performance.now(), url: url && urlOf(url, null), fullUrl: url && fullUrlOf(url, null), target: o.target || null, format: o.format, label, contentType: o.contentType });
  }

  /**
   * Profiles every fetch, XMLHttpRequest, EventSource and WebSocket whose URL matches
   * `options.match` (a string it contains, a RegExp, or a function; everything without it).
   * Returns a function that undoes it. Options as for `track`.
   * @param {import('./index.js').InstrumentOptions} [options]
   */
  instrument(options) {
    const hub = hubOf(this);
    try {
      return instrument(hub, options || {}, (input, init, label, original, extra) => profiledFetch(hub, input, init, label, original, extra));
    } catch {
      return () => {};
    }
  }

  /**
   * A fetch whose streams carry `label` (summaries group by it): `fetch: profiler.labeled('gpt-4o')`.
   * @param {string} label
   * @returns {typeof fetch}
   */
  labeled(label) {
    const hub = hubOf(this);
    return (input, init) => profiledFetch(hub, input, init, String(label));
  }

  /**
   * Calls `callback` for each stream still open, with its figures so far (from the records its
   * report will be made of), after a painted frame, every 100 ms at most. Returns an unsubscribe
   * function. Nothing is done for it without a subscriber.
   * @param {(progress: import('./report.js').Progress) => void} callback
   */
  onProgress(callback) {
    const hub = hubOf(this);
    if (typeof callback !== 'function') return () => {};
    return hub.onProgress(callback);
  }

  /**
   * Calls `callback(metric)` for each headline metric of each finished stream, web-vitals
   * style: `{ name, value, rating, id, attribution }`. Returns a function that unsubscribes.
   * @param {(metric: ReturnType<typeof import('./ratings.js').metricsOf>[number]) => void} callback
   */
  onMetric(callback) {
    const listeners = hubOf(this).reports.metricListeners;
    if (typeof callback !== 'function') return () => {};
    listeners.add(callback);
    return () => listeners.delete(callback);
  }

  /** The summary in a compact form that `mergeSummary` (in another tab, page or user) reads. */
  exportSummary() {
    return hubOf(this).link.call((c) => c.export_summary(), null);
  }

  /**
   * Merges an exported summary into this profiler's; false if it could not be read.
   * @param {unknown} exported
   */
  mergeSummary(exported) {
    if (typeof exported !== 'string') return false;
    return hubOf(this).link.call((c) => c.merge_summary(exported), false);
  }

  /**
   * Calls `callback(report)` once per finished stream; returns a function that unsubscribes.
   * @param {(report: import('./report.js').Report) => void} callback
   */
  onReport(callback) {
    const listeners = hubOf(this).reports.listeners;
    if (typeof callback !== 'function') return () => {};
    listeners.add(callback);
    return () => listeners.delete(callback);
  }

  /** The reports of finished streams, oldest first (at most `maxReports`). */
  reports() {
    return hubOf(this).reports.list.slice();
  }

  /** Percentiles over finished streams, or null when the core is not available. */
  summary() {
    const json = hubOf(this).link.call((c) => c.summary(), '');
    if (!json) return null;
    try {
      const summary = JSON.parse(json);
      withFixes(summary.diagnosis);
      return summary;
    } catch {
      return null;
    }
  }

  /** Logs the last report and the summary to the console; returns the text. */
  print() {
    try {
      const text = summaryText(hubOf(this).reports.last() || null, this.summary());
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
    hubOf(this).disconnect();
  }

  /** Disconnects for good: the profiler observes nothing more and its exporter is closed. */
  close() {
    hubOf(this).close();
  }
}

/**
 * A profiler's inside (its Hub), for tests that look at its state; not part of the package's
 * API (the package exports only its three entries: the index, the lazy stub and the overlay).
 * @param {Profiler} p
 */
export function inside(p) {
  return hubs.get(p) || null;
}

// The lazy stub (lazy.js) hands over what came before this profiler was loaded.

/** @typedef {{ url?: string, target?: Element | null, label?: string, start: number, headersAt?: number, format?: string }} EarlyOptions */

/**
 * A stream that began before: its sink; `input` is what the app fetched (undefined for a tracked Response).
 * @param {Profiler} p
 * @param {Response} res
 * @param {EarlyOptions} o
 * @param {RequestInfo | URL | undefined} input
 */
export function sinkOf(p, res, o, input) {
  const hub = hubs.get(p);
  return hub ? hub.feed(res, early(hub, res, o, input)) : null;
}

/**
 * A Response that came after this profiler was there: wrapped as usual.
 * @param {Profiler} p
 * @param {Response} res
 * @param {EarlyOptions} o
 * @param {RequestInfo | URL | undefined} input
 */
export function adopt(p, res, o, input) {
  const hub = hubs.get(p);
  return hub ? hub.wrap(res, early(hub, res, o, input)) : res;
}

/**
 * A request that failed before any response.
 * @param {Profiler} p
 * @param {RequestInfo | URL} input
 * @param {number} start
 * @param {unknown} e
 */
export function failedEarly(p, input, start, e) {
  const hub = hubs.get(p);
  if (hub) hub.failed(urlOf(input, null), start, e);
}

/**
 * @param {Hub} hub
 * @param {Response | null} res
 * @param {EarlyOptions} o
 * @param {RequestInfo | URL | undefined} input
 * @returns {import('./core/stream.js').StreamOptions}
 */
function early(hub, res, o, input) {
  const url = o.url !== undefined ? o.url : input;
  return { ...o, target: o.target || null, label: o.label !== undefined ? String(o.label) : hub.options.label, url: urlOf(url, res), fullUrl: fullUrlOf(url, res) };
}

/**
 * @param {Hub} hub
 * @param {RequestInfo | URL} input
 * @param {RequestInit | undefined} init
 * @param {string | undefined} label
 * @param {typeof fetch | null} [fetchFn]
 * @param {{ guess?: boolean }} [extra]
 */
async function profiledFetch(hub, input, init, label, fetchFn, extra) {
  const f = fetchFn || hub.fetchFn;
  if (!f) throw new TypeError('fetch is not available');
  const start = performance.now();
  // The requested model, and for the URLs the app chose (otlp.propagate), trace context.
  const trace = hub.otlp ? hub.otlp.begin(fullUrlOf(input, null), init && init.body, start) : null;
  if (trace && trace.headers && hub.otlp) [input, init] = hub.otlp.withHeaders(input, init, trace.headers);
  let res;
  try {
    res = await f.call(globalThis, input, init);
  } catch (e) {
    if (trace && trace.span) {
      trace.span.setStatus({ code: 2, message: 'network' });
      trace.span.end();
    }
    hub.failed(urlOf(input, null), start, e);
    throw e; // exactly what the app's own fetch would have thrown
  }
  // A stream instrument() let through: the page's asks are seen (asks.js), so a learned answer's
  // start can be the request that carried the question.
  return hub.wrap(res, { start, url: urlOf(input, res), fullUrl: fullUrlOf(input, res), target: null, format: undefined, label, trace, guess: !!(extra && extra.guess), asks: !!extra });
}

/**
 * Which non-fetch transport object `x` is, if any.
 * @param {any} x
 */
function transportOf(x) {
  const g = /** @type {any} */ (globalThis);
  if (!x || typeof x !== 'object') return null;
  if (typeof g.XMLHttpRequest === 'function' && x instanceof g.XMLHttpRequest) return 'xhr';
  if (typeof g.EventSource === 'function' && x instanceof g.EventSource) return 'eventsource';
  if (typeof g.WebSocket === 'function' && x instanceof g.WebSocket) return 'websocket';
  // A socket.io-client Socket (duck-typed: tokenpaint does not load Socket.IO).
  if (typeof x.onAny === 'function' && typeof x.emit === 'function' && x.io) return 'socket.io';
  return null;
}
