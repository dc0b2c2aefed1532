// OTLP/HTTP JSON export to an OpenTelemetry collector:
// - one trace per stream: a root span `llm.stream` with a child span per phase (in order, with
//   its source) and events for the first token's arrival and its paint;
// - the summary's metrics as exponential histograms (base 2^(1/32), scale 5: OpenTelemetry's
//   own mergeable histogram, so backends aggregate across pages and users).
// Spans are batched (maxBatch, intervalMs) and flushed with fetch(keepalive) on `pagehide`, so
// the last ones are not lost when the page goes away. The answer text is never exported.

const SCALE = 5;
const GAMMA = 1.020_202_020_202_02; // the core's DDSketch: (1 + 1%) / (1 − 1%)
const METRICS = ['ttft', 'ttftPerceived', 'e2e', 'e2ePerceived', 'tpot', 'itl', 'lag', 'queue', 'prefill', 'network', 'decode', 'intermediary', 'client'];

const hex = (n) => Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, '0')).join('');
/** performance.now() ms → Unix epoch nanoseconds, as the string OTLP/JSON wants for 64-bit ints. */
const nanos = (t) => (BigInt(Math.round((performance.timeOrigin + t) * 1000)) * 1000n).toString();

function attr(key, value) {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  if (typeof value === 'number') return Number.isInteger(value) ? { key, value: { intValue: String(value) } } : { key, value: { doubleValue: value } };
  return { key, value: { stringValue: String(value) } };
}
const attrs = (o) => Object.entries(o).map(([k, v]) => attr(k, v)).filter(Boolean);

/** The spans of one report. */
export function spansOf(report) {
  const traceId = hex(16);
  const root = hex(8);
  const t0 = report.startTime;
  const end = report.e2ePerceived?.painted ?? report.e2e ?? report.ttfb ?? 0;
  const events = [];
  if (report.ttft !== null && report.ttft !== undefined) events.push({ timeUnixNano: nanos(t0 + report.ttft), name: 'first_token', attributes: [] });
  if (report.ttftPerceived) events.push({ timeUnixNano: nanos(t0 + report.ttftPerceived.painted), name: 'first_paint', attributes: [] });
  const spans = [
    {
      traceId,
      spanId: root,
      name: 'llm.stream',
      kind: 3, // SPAN_KIND_CLIENT
      startTimeUnixNano: nanos(t0),
      endTimeUnixNano: nanos(t0 + Math.max(0, end)),
      attributes: attrs({
        'url.path': safePath(report.url),
        'tokenpaint.format': report.format,
        'tokenpaint.status': report.status,
        'tokenpaint.label': report.label,
        'tokenpaint.verdict': report.diagnosis?.[0]?.verdict,
        'gen_ai.usage.output_tokens': report.tokensSource === 'usage' ? report.tokens : null,
        'tokenpaint.deltas': report.deltas,
        'tokenpaint.ttft_ms': report.ttft,
        'tokenpaint.ttft_perceived_ms': report.ttftPerceived?.painted,
        'tokenpaint.lag_p50_ms': report.lag?.p50,
      }),
      events,
      status: { code: report.status === 'ok' ? 1 : 2, message: report.error?.kind || '' },
    },
  ];
  let at = t0;
  for (const p of report.phases || []) {
    if (p.ms === null || !(p.ms > 0)) continue;
    spans.push({
      traceId,
      spanId: hex(8),
      parentSpanId: root,
      name: `phase.${p.name}`,
      kind: 1, // SPAN_KIND_INTERNAL
      startTimeUnixNano: nanos(at),
      endTimeUnixNano: nanos(at + p.ms),
      attributes: attrs({ 'tokenpaint.source': p.source }),
      status: { code: 0 },
    });
    at += p.ms;
  }
  return spans;
}

function safePath(url) {
  try {
    return new URL(url).pathname;
  } catch {
    return String(url || '');
  }
}

/** The summary's sketches (from `exportSummary()`) as OTLP exponential histograms. */
export function metricsOf(exported, since) {
  let data;
  try {
    data = JSON.parse(exported);
  } catch {
    return [];
  }
  const sketches = (data.all && data.all[6]) || [];
  const now = nanos(performance.now());
  const out = [];
  METRICS.forEach((name, i) => {
    const s = sketches[i];
    if (!s) return;
    const [offset, zero, count, min, max, sum, buckets] = s;
    // Re-bucket each DDSketch bucket's representative value into scale-5 buckets.
    const counts = new Map();
    buckets.forEach((n, j) => {
      if (!n) return;
      const v = (2 * GAMMA ** (offset + j)) / (GAMMA + 1);
      const idx = Math.ceil(Math.log2(v) * 2 ** SCALE) - 1;
      counts.set(idx, (counts.get(idx) || 0) + n);
    });
    const idxs = [...counts.keys()];
    const lo = idxs.length ? Math.min(...idxs) : 0;
    const hi = idxs.length ? Math.max(...idxs) : -1;
    const bucketCounts = [];
    for (let k = lo; k <= hi; k++) bucketCounts.push(String(counts.get(k) || 0));
    out.push({
      name: `tokenpaint.${name}`,
      unit: 'ms',
      description: `tokenpaint ${name}, over finished streams`,
      exponentialHistogram: {
        aggregationTemporality: 2, // AGGREGATION_TEMPORALITY_CUMULATIVE
        dataPoints: [
          {
            startTimeUnixNano: since,
            timeUnixNano: now,
            count: String(count),
            sum,
            min,
            max,
            scale: SCALE,
            zeroCount: String(zero),
            zeroThreshold: 0.001,
            positive: { offset: lo, bucketCounts },
            attributes: [],
          },
        ],
      },
    });
  });
  return out;
}

/** Batches reports into OTLP payloads and sends them to `url` (`/v1/traces`, `/v1/metrics`). */
export class OtlpExporter {
  constructor({ url, headers = {}, serviceName = 'tokenpaint-web', maxBatch = 20, intervalMs = 10000 }, summaryExport) {
    this.url = String(url).replace(/\/+$/, '');
    this.headers = headers;
    this.resource = { attributes: attrs({ 'service.name': serviceName, 'telemetry.sdk.name': 'tokenpaint', 'telemetry.sdk.language': 'webjs' }) };
    this.scope = { name: 'tokenpaint', version: '0.1.0' };
    this.maxBatch = maxBatch;
    this.summaryExport = summaryExport;
    this.since = nanos(performance.now());
    this.spans = [];
    this.timer = setInterval(() => this.flush(), intervalMs);
    this.onPageHide = () => this.flush();
    if (typeof addEventListener === 'function') addEventListener('pagehide', this.onPageHide);
  }

  add(report) {
    try {
      this.spans.push(...spansOf(report));
      if (this.spans.length >= this.maxBatch) this.flush();
    } catch {
      /* a report that cannot be exported is not a reason to break the page */
    }
  }

  /** Sends what is batched, and the summary's metrics; resolves when sent (or failed). */
  flush() {
    const sends = [];
    if (this.spans.length) {
      const spans = this.spans.splice(0);
      sends.push(this.post('/v1/traces', { resourceSpans: [{ resource: this.resource, scopeSpans: [{ scope: this.scope, spans }] }] }));
    }
    const exported = this.summaryExport();
    const metrics = exported ? metricsOf(exported, this.since) : [];
    if (metrics.length) sends.push(this.post('/v1/metrics', { resourceMetrics: [{ resource: this.resource, scopeMetrics: [{ scope: this.scope, metrics }] }] }));
    return Promise.all(sends);
  }

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
  }
}
