// What tokenpaint needs of OpenTelemetry when a request leaves: the page's own SDK, if it registered
// one, and W3C trace context for the requests the app chose to propagate to (`otlp.propagate`).
// No import of @opentelemetry/api: the API keeps what the app registered on a global of its own
// (`Symbol.for('opentelemetry.js.api.1')`), whichever bundle registered it, so tokenpaint reads
// that, and a page without OpenTelemetry loads nothing for it.

import { modelOf } from './model.js';

const API = Symbol.for('opentelemetry.js.api.1');
/** The key the API keeps the current span under in a context. */
export const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * The page's OpenTelemetry API registry (its own types are not imported: see above).
 * @typedef {any} OtelApi
 */
/**
 * A request's trace: its requested model, and when its URL is propagated to, its span (the
 * page's SDK's) or ids, and the headers that carry them.
 * @typedef {{ model: string | null, headers?: Record<string, string> | null, traceId?: string | null, spanId?: string | null, span?: any }} Trace
 */

export const hex = (/** @type {number} */ n) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The API's registry, when the page registered a tracer or meter provider; else null.
 * @returns {OtelApi | null}
 */
export function pageOtel() {
  const g = /** @type {Record<symbol, OtelApi>} */ (/** @type {unknown} */ (globalThis))[API];
  return g && (g.trace || g.metrics) ? g : null;
}

/** A context the API's tracers accept (the active one, or a root one of the same shape). */
class Context {
  /** @param {Map<symbol, unknown>} [map] */
  constructor(map) {
    this.m = map || new Map();
  }
  /** @param {symbol} k */
  getValue(k) {
    return this.m.get(k);
  }
  /** @param {symbol} k @param {unknown} v */
  setValue(k, v) {
    return new Context(new Map(this.m).set(k, v));
  }
  /** @param {symbol} k */
  deleteValue(k) {
    const m = new Map(this.m);
    m.delete(k);
    return new Context(m);
  }
}

/** @param {OtelApi} api */
export function contextOf(api) {
  try {
    const active = api.context && api.context.active();
    if (active && typeof active.setValue === 'function') return active;
  } catch {
    /* no context manager */
  }
  return new Context();
}

/** @typedef {string | RegExp | ((url: string) => boolean) | Rule[]} Rule */

/**
 * Whether `url` is one the app asked to propagate to: a substring, a RegExp, a function, or a list of them.
 * @param {Rule | undefined} rule
 * @param {string} url
 * @returns {boolean}
 */
function matches(rule, url) {
  if (Array.isArray(rule)) return rule.some((r) => matches(r, url));
  if (typeof rule === 'string') return rule !== '' && url.includes(rule);
  if (rule instanceof RegExp) return rule.test(url);
  if (typeof rule === 'function') return rule(url) === true;
  return false;
}

/**
 * A request leaving (fetch): what the export will need (the requested model), and, when its URL
 * matches `options.propagate`, its trace: the stream span (started now in the page's SDK, or ids
 * of tokenpaint's own) and the `traceparent` (and `tracestate`) headers that make the server's
 * spans its children. Returns null when there is nothing to add; never throws.
 * @param {NonNullable<import('../options.js').ProfilerOptions['otlp']>} options
 * @param {string} url
 * @param {unknown} body
 * @param {number} start
 * @returns {Trace | null}
 */
export function begin(options, url, body, start) {
  try {
    /** @type {{ model: string | null, headers: Record<string, string> | null, traceId: string | null, spanId: string | null, span: any }} */
    const trace = { model: modelOf(body), headers: null, traceId: null, spanId: null, span: null };
    if (!matches(options.propagate, url)) return trace;
    const api = options.useGlobal === false ? null : pageOtel();
    /** @type {Record<string, string>} */
    const headers = {};
    if (api && api.trace) {
      const ctx = contextOf(api);
      trace.span = api.trace.getTracer('tokenpaint', '0.1.0').startSpan('chat', { kind: 2, startTime: start }, ctx);
      const sc = trace.span.spanContext();
      trace.traceId = sc.traceId;
      trace.spanId = sc.spanId;
      if (api.propagation) api.propagation.inject(ctx.setValue(SPAN_KEY, trace.span), headers, { set: (/** @type {Record<string, string>} */ c, /** @type {string} */ k, /** @type {string} */ v) => (c[k] = v) });
      if (!headers.traceparent) headers.traceparent = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1 ? 1 : 0).toString(16).padStart(2, '0')}`;
    } else {
      trace.traceId = hex(16);
      trace.spanId = hex(8);
      headers.traceparent = `00-${trace.traceId}-${trace.spanId}-01`;
    }
    trace.headers = headers;
    return trace;
  } catch {
    return null;
  }
}

/**
 * `input` and `init` with `headers` added, the app's own objects untouched.
 * @param {RequestInfo | URL} input
 * @param {RequestInit | undefined} init
 * @param {Record<string, string>} headers
 * @returns {[RequestInfo | URL, RequestInit | undefined]}
 */
export function withHeaders(input, init, headers) {
  if (typeof Request === 'function' && input instanceof Request && !(init && init.headers)) {
    const h = new Headers(input.headers);
    for (const [k, v] of Object.entries(headers)) h.set(k, v);
    return [new Request(input, { headers: h }), init];
  }
  const h = new Headers((init && init.headers) || undefined);
  for (const [k, v] of Object.entries(headers)) h.set(k, v);
  return [input, { ...(init || {}), headers: h }];
}
