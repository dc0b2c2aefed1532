// OpenTelemetry export, in the GenAI semantic conventions' terms (client inference: names, units in
// seconds, bucket advice, attributes), with what only tokenpaint measures under `tokenpaint.*`.
// Two sinks:
// - the page's own OpenTelemetry SDK, when it registered providers with @opentelemetry/api: spans
//   and metrics go through its TracerProvider and MeterProvider (and its exporters);
// - otherwise tokenpaint's own OTLP/HTTP JSON exporter to `url`: spans batched, metrics as
//   explicit-bucket histograms with delta temporality, flushed with fetch(keepalive) when the
//   page is hidden and on pagehide.
// Metrics come from this page's own reports only, never from the summary: a summary merged in from
// another page (mergeSummary) was exported by that page, and is not exported again. The answer text
// is never exported.

import * as otel from './otel.js';
import { pageOtel, hex, SPAN_KEY, contextOf } from './otel.js';
import { UNSENT } from './unsent.js';

export { otel };

const SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** @typedef {import('../report.js').Report} Report */
/** @typedef {import('../report.js').StreamReport} StreamReport */
/** @typedef {import('../report.js').FailedReport} FailedReport */
/** @typedef {import('./otel.js').Trace} Trace */
/** @typedef {NonNullable<import('../options.js').ProfilerOptions['otlp']>} OtlpOptions */
/** @typedef {Record<string, unknown>} Attributes */

const sec = (/** @type {unknown} */ ms) => (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null);
/**
 * @param {number | null | undefined} v
 * @param {Attributes} [extra]
 * @returns {Array<[number, Attributes?]>}
 */
const one = (v, extra) => (v === null || v === undefined ? [] : [[v, extra]]);

/**
 * The per-chunk gaps after the first (s): the core's inter-token latency samples, which are the
 * differences of the report's per-token arrivals. Once detail was decimated a record stands for
 * a run of deltas whose own gaps are not kept (the core sketched them): nothing is exported then,
 * rather than the gaps between runs.
 * @param {StreamReport} r
 * @returns {Array<[number, Attributes?]>}
 */
function gaps(r) {
  const at = (r.timeline && !r.timeline.count && r.timeline.arrived) || [];
  const out = [];
  /** @type {number | null} */
  let last = null;
  for (const t of at) {
    if (typeof t !== 'number') continue;
    const gap = last === null ? null : sec(t - last);
    if (gap !== null) out.push(/** @type {[number]} */ ([gap]));
    last = t;
  }
  return out;
}

/**
 * Every metric: [name, unit, description, bucket advice, values of one report as [value, extra
 * attributes]]. The `gen_ai.*` ones are the conventions' own; the `tokenpaint.*` ones are not in
 * any convention.
 * @type {Array<[string, string, string, number[], (r: StreamReport) => Array<[number, Attributes?]>]>}
 */
export const METRICS = [
  ['gen_ai.client.operation.duration', 's', 'GenAI operation duration.', SECONDS, (r) => one(sec(r.bodyEnd))],
  ['gen_ai.client.operation.time_to_first_chunk', 's', 'Time to receive the first chunk, from when the client issued the request.', SECONDS, (r) => one(sec(r.ttfc))],
  ['gen_ai.client.operation.time_per_output_chunk', 's', 'Time per output chunk, for each chunk after the first, from the end of the previous chunk.', SECONDS, gaps],
  ['gen_ai.client.token.usage', '{token}', 'Number of input and output tokens used.', TOKENS, (r) => [...one(r.usage?.promptTokens, { 'gen_ai.token.type': 'input' }), ...one(r.usage?.completionTokens, { 'gen_ai.token.type': 'output' })]],
  ['tokenpaint.ttft.perceived', 's', 'The first answer text painted on screen, from the request start.', SECONDS, (r) => one(sec(r.ttftPerceived?.painted))],
  ['tokenpaint.e2e.perceived', 's', 'The last answer text painted on screen, from the request start.', SECONDS, (r) => one(sec(r.e2ePerceived?.painted))],
  ['tokenpaint.delivery.lag', 's', "A stream's median delivery lag: painted minus arrived, per token.", SECONDS, (r) => one(sec(r.lag?.p50))],
  ['tokenpaint.backlog.peak', '{char}', 'Most characters arrived but not yet painted at any moment of a stream.', TOKENS, (r) => one(r.backlogPeak)],
  ['tokenpaint.phase.duration', 's', 'Each known phase of end-to-end latency (attribute tokenpaint.phase).', SECONDS, (r) => (r.phases || []).flatMap((/** @type {{ ms: number | null, name: string }} */ p) => one(sec(p.ms), { 'tokenpaint.phase': p.name }))],
];

// What the detected format says of the provider (gen_ai.provider.name): the conventions' own
// value where one applies; an OpenAI-compatible server (vLLM, llama.cpp, Ollama's /v1) speaks
// the `openai` flavour.
/** @type {Record<string, string>} */
const PROVIDERS = { 'openai-chat': 'openai', 'openai-responses': 'openai', anthropic: 'anthropic', ollama: 'ollama', tgi: 'huggingface.tgi', llamacpp: 'llama.cpp' };

/** The conventions' attributes of a report's operation. */
/** @param {StreamReport | FailedReport} r @param {{ operation?: string, provider?: string, model?: string }} [options] @param {Trace | null} [trace] */
export function genaiAttributes(r, options = {}, trace = null) {
  /** @type {Attributes} */
  const a = {
    'gen_ai.operation.name': options.operation || 'chat',
    'gen_ai.provider.name': options.provider || PROVIDERS[/** @type {string} */ (r.format)] || r.format || 'unknown',
    'gen_ai.request.model': options.model || (trace && trace.model) || null,
  };
  try {
    const u = new URL(r.url, typeof location === 'object' ? location.href : undefined);
    a['server.address'] = u.hostname;
    a['server.port'] = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  } catch {
    /* a relative URL with no page to resolve it: no server attributes */
  }
  if (r.status !== 'ok') a['error.type'] = r.error?.code || (/** @type {number} */ (r.httpStatus) >= 400 ? String(r.httpStatus) : r.error?.kind) || '_OTHER';
  return a;
}

/**
 * @param {string} key
 * @param {unknown} value
 * @returns {{ key: string, value: object } | null}
 */
function attr(key, value) {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return { key, value: { arrayValue: { values: value.map((v) => /** @type {{ value: object }} */ (attr('', v)).value) } } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  if (typeof value === 'number') return Number.isInteger(value) ? { key, value: { intValue: String(value) } } : { key, value: { doubleValue: value } };
  return { key, value: { stringValue: String(value) } };
}
const attrs = (/** @type {Attributes} */ o) => Object.entries(o).map(([k, v]) => attr(k, v)).filter(Boolean);
const defined = (/** @type {Attributes} */ o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
/** performance.now() ms → Unix epoch nanoseconds, as the string OTLP/JSON wants for 64-bit ints. */
const nanos = (/** @type {number} */ t) => (BigInt(Math.round((performance.timeOrigin + t) * 1000)) * 1000n).toString();

/**
 * The root span's attributes: the conventions', then tokenpaint's own.
 * @param {StreamReport} r
 * @param {Attributes} a
 */
function spanAttributes(r, a) {
  return defined({
    ...a,
    'gen_ai.request.stream': true,
    'gen_ai.response.time_to_first_chunk': sec(r.ttfc),
    'gen_ai.response.finish_reasons': r.finishReason ? [r.finishReason] : null,
    'gen_ai.usage.input_tokens': r.usage?.promptTokens,
    'gen_ai.usage.output_tokens': r.usage?.completionTokens,
    'http.response.status_code': r.httpStatus || null,
    'url.path': safePath(r.url),
    'tokenpaint.format': r.format,
    'tokenpaint.status': r.status,
    'tokenpaint.label': r.label,
    'tokenpaint.verdict': r.diagnosis?.[0]?.verdict,
    'tokenpaint.deltas': r.deltas,
    'tokenpaint.ttft.perceived': sec(r.ttftPerceived?.painted),
    'tokenpaint.e2e.perceived': sec(r.e2ePerceived?.painted),
    'tokenpaint.delivery.lag': sec(r.lag?.p50),
    'tokenpaint.backlog.peak': r.backlogPeak,
  });
}

/** @param {Attributes} a */
function spanName(a) {
  return a['gen_ai.request.model'] ? `${a['gen_ai.operation.name']} ${a['gen_ai.request.model']}` : a['gen_ai.operation.name'];
}

const endOf = (/** @type {StreamReport} */ r) => Math.max(0, r.e2ePerceived?.painted ?? 0, r.bodyEnd ?? r.e2e ?? r.ttfb ?? 0);
const eventsOf = (/** @type {StreamReport} */ r) =>
  /** @type {Array<[string, number]>} */ (
    [
      ['tokenpaint.first_token', r.ttft],
      ['tokenpaint.first_paint', r.ttftPerceived?.painted],
    ].filter(([, t]) => typeof t === 'number')
  );

/**
 * The phases as [name, start, end, source] from the request start (ms, performance.now()).
 * @param {StreamReport} r
 */
function phaseSpans(r) {
  /** @type {Array<[string, number, number, string | null]>} */
  const out = [];
  let at = r.startTime;
  for (const p of r.phases || []) {
    if (p.ms === null || !(p.ms > 0)) continue;
    out.push([`tokenpaint.phase.${p.name}`, at, at + p.ms, p.source]);
    at += p.ms;
  }
  return out;
}

/**
 * The OTLP/JSON spans of one report, whose conventions' attributes are `a`; `trace` carries the
 * ids sent in `traceparent`, if any.
 */
/** @param {StreamReport} r @param {Attributes} a @param {Trace | null} [trace] */
export function spansOf(r, a, trace = null) {
  const traceId = (trace && trace.traceId) || hex(16);
  const root = (trace && trace.spanId) || hex(8);
  const t0 = r.startTime;
  /** @type {object[]} */
  const spans = [
    {
      traceId,
      spanId: root,
      name: spanName(a),
      kind: 3, // SPAN_KIND_CLIENT
      startTimeUnixNano: nanos(t0),
      endTimeUnixNano: nanos(t0 + endOf(r)),
      attributes: attrs(spanAttributes(r, a)),
      events: eventsOf(r).map(([name, t]) => ({ timeUnixNano: nanos(t0 + t), name, attributes: [] })),
      status: { code: r.status === 'ok' ? 1 : 2, message: r.error?.kind || '' },
    },
  ];
  for (const [name, start, end, source] of phaseSpans(r)) {
    spans.push({
      traceId,
      spanId: hex(8),
      parentSpanId: root,
      name,
      kind: 1, // SPAN_KIND_INTERNAL
      startTimeUnixNano: nanos(start),
      endTimeUnixNano: nanos(end),
      attributes: attrs(defined({ 'tokenpaint.phase.source': source })),
      status: { code: 0, message: '' },
    });
  }
  return spans;
}

/** @param {unknown} url */
function safePath(url) {
  try {
    return new URL(String(url)).pathname;
  } catch {
    return String(url || '');
  }
}

/** Explicit-bucket histograms of the reports added since the last `take()` (delta temporality). */
/** @typedef {{ i: number, a: Attributes, count: number, sum: number, min: number, max: number, buckets: number[] }} Point */

class Histograms {
  constructor() {
    /** @type {Map<string, Point>} */
    this.points = new Map();
    this.since = nanos(performance.now());
  }

  /**
   * Adds report `r`, whose conventions' attributes are `a`.
   * @param {StreamReport | FailedReport} r
   * @param {Attributes} a
   */
  add(r, a) {
    if (r.status === 'failed') return; // tokenpaint failed: nothing was measured
    const base = defined(a);
    METRICS.forEach(([name, , , bounds, values], i) => {
      for (const [v, extra] of values(r)) {
        if (typeof v !== 'number' || !Number.isFinite(v)) continue;
        const a = { ...base, ...extra };
        const key = `${i}\u0000${JSON.stringify(Object.entries(a).sort())}`;
        let p = this.points.get(key);
        if (!p) this.points.set(key, (p = { i, a, count: 0, sum: 0, min: v, max: v, buckets: new Array(bounds.length + 1).fill(0) }));
        p.count++;
        p.sum += v;
        p.min = Math.min(p.min, v);
        p.max = Math.max(p.max, v);
        let b = 0;
        while (b < bounds.length && v > bounds[b]) b++;
        p.buckets[b]++;
      }
    });
  }

  /** The OTLP metrics since the last take, and a fresh start. */
  take() {
    const now = nanos(performance.now());
    /** @type {Map<number, object[]>} */
    const byMetric = new Map();
    for (const p of this.points.values()) {
      if (!byMetric.has(p.i)) byMetric.set(p.i, []);
      /** @type {object[]} */ (byMetric.get(p.i)).push({
        attributes: attrs(p.a),
        startTimeUnixNano: this.since,
        timeUnixNano: now,
        count: String(p.count),
        sum: p.sum,
        min: p.min,
        max: p.max,
        bucketCounts: p.buckets.map(String),
        explicitBounds: METRICS[p.i][3],
      });
    }
    this.points.clear();
    this.since = now;
    return [...byMetric].map(([i, dataPoints]) => ({
      name: METRICS[i][0],
      unit: METRICS[i][1],
      description: METRICS[i][2],
      histogram: { aggregationTemporality: 1, dataPoints }, // AGGREGATION_TEMPORALITY_DELTA
    }));
  }
}

/**
 * The reports an earlier page of the origin left for the collector at `url` (it was left before
 * the exporter had loaded: exporter.js kept them), taken out of the storage.
 * @param {unknown} url
 * @returns {Array<[StreamReport, Trace | null]>}
 */
export function takeUnsent(url) {
  if (!url) return [];
  try {
    /** @type {Array<{ url: string, report: StreamReport, trace: Trace | null }>} */
    const kept = JSON.parse(localStorage.getItem(UNSENT) || '[]');
    const rest = kept.filter((k) => k.url !== String(url));
    if (rest.length) localStorage.setItem(UNSENT, JSON.stringify(rest));
    else localStorage.removeItem(UNSENT);
    return kept.filter((k) => k.url === String(url)).map((k) => [k.report, k.trace]);
  } catch {
    return [];
  }
}

// One id per page load: the series of this page session, told apart from every other page's.
const INSTANCE = typeof crypto === 'object' && typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : hex(16);

/** Batches reports into OTLP payloads and sends them to `url` (`/v1/traces`, `/v1/metrics`). */
export class OtlpExporter {
  /** @param {OtlpOptions} options */
  constructor(options) {
    const { url, headers = {}, serviceName = 'tokenpaint-web', maxBatch = 20, intervalMs = 10000 } = options;
    /** @readonly */
    this.options = options;
    /** @readonly */
    this.url = String(url).replace(/\/+$/, '');
    /** @readonly */
    this.headers = headers;
    /** @readonly */
    this.resource = { attributes: attrs({ 'service.name': serviceName, 'service.instance.id': INSTANCE, 'telemetry.sdk.name': 'tokenpaint', 'telemetry.sdk.language': 'webjs' }) };
    /** @readonly */
    this.scope = { name: 'tokenpaint', version: '0.1.0' };
    /** @readonly */
    this.maxBatch = maxBatch;
    /** @readonly */
    this.histograms = new Histograms();
    /** @readonly @type {object[]} */
    this.spans = [];
    /** @readonly */
    this.timer = setInterval(() => this.flush(), intervalMs);
    /** @readonly */
    this.onPageHide = () => this.flush();
    if (typeof addEventListener === 'function') addEventListener('pagehide', this.onPageHide);
    // A page hidden (a tab switched away, a phone's browser sent to the background) may never
    // see pagehide: the system can end it meanwhile. What is batched is sent when it is hidden.
    /** @readonly */
    this.onHidden = () => document.visibilityState === 'hidden' && this.flush();
    if (typeof document === 'object' && document && typeof document.addEventListener === 'function') document.addEventListener('visibilitychange', this.onHidden);
  }

  /**
   * @param {StreamReport | FailedReport} report
   * @param {Trace | null} trace
   */
  add(report, trace) {
    try {
      const a = genaiAttributes(report, this.options, trace);
      if (report.status !== 'failed') this.spans.push(...spansOf(report, a, trace));
      this.histograms.add(report, a);
      if (this.spans.length >= this.maxBatch) this.flush();
    } catch {
      /* a report that cannot be exported is not a reason to break the page */
    }
  }

  /** Sends what is batched: spans, and the metrics since the last flush; resolves when sent. */
  flush() {
    const sends = [];
    if (this.spans.length) {
      const spans = this.spans.splice(0);
      sends.push(this.post('/v1/traces', { resourceSpans: [{ resource: this.resource, scopeSpans: [{ scope: this.scope, spans }] }] }));
    }
    const metrics = this.histograms.take();
    if (metrics.length) sends.push(this.post('/v1/metrics', { resourceMetrics: [{ resource: this.resource, scopeMetrics: [{ scope: this.scope, metrics }] }] }));
    return Promise.all(sends);
  }

  /**
   * @param {string} path
   * @param {object} body
   */
  post(path, body) {
    try {
      // keepalive: the request outlives the page when sent from pagehide.
      return fetch(this.url + path, { method: 'POST', keepalive: true, headers: { 'content-type': 'application/json', ...this.headers }, body: JSON.stringify(body) }).then(
        () => undefined,
        () => undefined,
      );
    } catch {
      return Promise.resolve();
    }
  }

  close() {
    clearInterval(this.timer);
    if (typeof removeEventListener === 'function') removeEventListener('pagehide', this.onPageHide);
    if (typeof document === 'object' && document && typeof document.removeEventListener === 'function') document.removeEventListener('visibilitychange', this.onHidden);
  }
}

/**
 * The page's own OpenTelemetry SDK: each report's span through its TracerProvider (the span
 * started when the request left, when the request was traced) and its metrics through its
 * MeterProvider, with the conventions' bucket advice. The SDK's readers and exporters decide the
 * rest (temporality, batching, where it goes).
 */
export class SdkSink {
  /**
   * @param {OtlpOptions} options
   * @param {import('./otel.js').OtelApi} api
   */
  constructor(options, api) {
    this.options = options;
    this.api = api;
    /** @type {any[] | null} */
    this.instruments = null;
  }

  meters() {
    if (this.instruments || !this.api.metrics) return this.instruments;
    const meter = this.api.metrics.getMeter('tokenpaint', '0.1.0');
    this.instruments = METRICS.map(([name, unit, description, bounds]) => meter.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: bounds } }));
    return this.instruments;
  }

  /**
   * @param {StreamReport | FailedReport} r
   * @param {Trace | null} trace
   */
  add(r, trace) {
    try {
      const a = genaiAttributes(r, this.options, trace);
      if (r.status !== 'failed') this.span(r, a, trace);
      const hist = this.meters();
      if (hist && r.status !== 'failed') {
        const base = defined(a);
        METRICS.forEach(([, , , , values], i) => {
          for (const [v, extra] of values(r)) if (typeof v === 'number' && Number.isFinite(v)) hist[i].record(v, { ...base, ...extra });
        });
      }
    } catch {
      /* the app's SDK failing is not a reason to break the page */
    }
  }

  /**
   * @param {StreamReport} r
   * @param {Attributes} a
   * @param {Trace | null} trace
   */
  span(r, a, trace) {
    if (!this.api.trace) return;
    const tracer = this.api.trace.getTracer('tokenpaint', '0.1.0');
    const t0 = r.startTime;
    const span = (trace && trace.span) || tracer.startSpan(spanName(a), { kind: 2, startTime: t0 }, contextOf(this.api));
    if (trace && trace.span) span.updateName(spanName(a));
    span.setAttributes(spanAttributes(r, a));
    for (const [name, t] of eventsOf(r)) span.addEvent(name, {}, t0 + t);
    span.setStatus({ code: r.status === 'ok' ? 1 : 2, message: r.error?.kind || undefined });
    const parent = contextOf(this.api).setValue(SPAN_KEY, span);
    for (const [name, start, end, source] of phaseSpans(r)) {
      const child = tracer.startSpan(name, { kind: 0, startTime: start, attributes: defined({ 'tokenpaint.phase.source': source }) }, parent);
      child.end(end);
    }
    span.end(t0 + endOf(r));
  }

  flush() {
    return Promise.resolve();
  }

  close() {}
}

/**
 * The sink for `options`: the page's SDK when it registered one (and `useGlobal` is not false), else the OTLP exporter when a `url` is given.
 * @param {OtlpOptions} options
 */
export function sinkFor(options) {
  const api = options.useGlobal === false ? null : pageOtel();
  if (api) return new SdkSink(options, api);
  return options.url ? new OtlpExporter(options) : null;
}
