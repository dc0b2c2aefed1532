// Ratings, web-vitals style: each headline metric of a report is `good`, `needs-improvement` or
// `poor` against thresholds (ms) the app may override. No browser API here: unit-tested in Node.

/** [good up to, poor above], in ms. Perceived figures are what users feel. */
export const THRESHOLDS = Object.freeze({
  ttft: [1000, 3000],
  ttftPerceived: [1000, 3000],
  e2ePerceived: [10000, 30000],
  tpot: [50, 100],
  lag: [50, 200],
});

/** The rating of `value` against `[good, poor]`. */
export function rate(value, [good, poor]) {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  return value <= good ? 'good' : value <= poor ? 'needs-improvement' : 'poor';
}

/** The headline metrics of a report, each `{ name, value, rating, id, attribution }`. */
export function metricsOf(report, thresholds = THRESHOLDS) {
  const values = {
    ttft: report.ttft,
    ttftPerceived: report.ttftPerceived ? report.ttftPerceived.painted : null,
    e2ePerceived: report.e2ePerceived ? report.e2ePerceived.painted : null,
    tpot: report.tpot,
    lag: report.lag ? report.lag.p50 : null,
  };
  const out = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    const t = (thresholds && thresholds[name]) || THRESHOLDS[name];
    out.push({
      name,
      value,
      rating: rate(value, t),
      id: report.id,
      attribution: { diagnosis: report.diagnosis ? report.diagnosis[0] : null, phases: report.phases || null, format: report.format },
    });
  }
  return out;
}

/** Targets as the core reads them: `{ ttftPerceived: { p95: 1000 } }` → `ttftPerceived 0.95 1000`. */
export function sloSpec(slo) {
  if (!slo || typeof slo !== 'object') return '';
  const parts = [];
  for (const [metric, targets] of Object.entries(slo)) {
    for (const [q, max] of Object.entries(targets || {})) {
      const m = /^p(\d{1,2}(?:\.\d+)?)$/.exec(q);
      if (m && Number.isFinite(max)) parts.push(`${metric} ${Number(m[1]) / 100} ${max}`);
    }
  }
  return parts.join('; ');
}
