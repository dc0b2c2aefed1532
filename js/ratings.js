// Ratings, web-vitals style: each headline metric of a report is `good`, `needs-improvement` or
// `poor` against thresholds (ms) the app may override. The core rates (a report's `ratings`,
// `rate` in src/figures/browser.rs); here are the defaults, the spec the core reads, and the
// metrics `onMetric` hands out.
import { THRESHOLDS } from './schema.js';

/** [good up to, poor above], in ms: the core's defaults (`THRESHOLDS` in src/figures/browser.rs). */
export { THRESHOLDS };

/**
 * Thresholds as the core reads them: `ttft 1000 3000; …` (unknown metrics are left out).
 * @param {Partial<Record<string, number[]>> | null | undefined} thresholds
 */
export function thresholdSpec(thresholds) {
  const parts = [];
  for (const name of Object.keys(THRESHOLDS)) {
    const t = thresholds && thresholds[name];
    if (Array.isArray(t) && t.length === 2 && t.every(Number.isFinite)) parts.push(`${name} ${t[0]} ${t[1]}`);
  }
  return parts.join('; ');
}

/**
 * The headline metrics of a report, each `{ name, value, rating, id, attribution }`, rated by
 * the core (a report's `ratings`; null where it has none).
 * @param {import('./report.js').StreamReport} report
 */
export function metricsOf(report) {
  const values = {
    ttft: report.ttft,
    ttftPerceived: report.ttftPerceived ? report.ttftPerceived.painted : null,
    e2ePerceived: report.e2ePerceived ? report.e2ePerceived.painted : null,
    tpot: report.tpot,
    lag: report.lag ? report.lag.p50 : null,
  };
  /** @type {Partial<Record<string, string | null>>} */
  const ratings = report.ratings || {};
  const out = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === null || value === undefined) continue;
    out.push({
      name,
      value,
      rating: ratings[name] ?? null,
      id: report.id,
      attribution: { diagnosis: report.diagnosis ? report.diagnosis[0] : null, phases: report.phases || null, format: report.format },
    });
  }
  return out;
}

/**
 * Targets as the core reads them: `{ ttftPerceived: { p95: 1000 } }` → `ttftPerceived 0.95 1000`.
 * @param {Partial<Record<string, Partial<Record<string, number>>>> | null | undefined} slo
 */
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
