// DevTools: each finished stream becomes performance.measure entries on a "tokenpaint" custom
// track of Chrome's Performance panel (the `detail.devtools` extension), one per phase plus the
// measured and perceived first token. Feature-detected; other browsers just get the measures.
// Imported only with the `devtools` option (a chunk of its own for bundlers).

/** @type {Record<string, string>} */
const COLORS = { queue: 'tertiary', prefill: 'secondary', network: 'primary-light', decode: 'primary', intermediary: 'error', client: 'tertiary-light' };

/** @param {import('../report.js').StreamReport} report */
export function measure(report) {
  if (!globalThis.performance || typeof performance.measure !== 'function' || !report.phases) return;
  const t0 = report.startTime;
  /**
   * @param {string} name @param {number} start @param {number} duration @param {string} color
   * @param {Array<[string, string]>} props
   */
  const entry = (name, start, duration, color, props) => {
    if (!(duration >= 0) || !Number.isFinite(start)) return;
    try {
      performance.measure(`tokenpaint: ${name}`, {
        start,
        duration,
        detail: {
          devtools: {
            dataType: 'track-entry',
            track: 'tokenpaint',
            color,
            tooltipText: `${name}: ${Math.round(duration * 10) / 10} ms (stream ${report.id})`,
            properties: props,
          },
        },
      });
    } catch {
      /* an older browser without the options form: skip */
    }
  };
  let at = t0;
  for (const p of report.phases) {
    if (p.ms === null || p.ms <= 0) continue;
    entry(p.name, at, p.ms, COLORS[p.name] || 'primary', [['source', p.source || 'unknown'], ['format', report.format || '']]);
    at += p.ms;
  }
  if (report.ttft !== null) entry('first token arrived', t0, report.ttft, 'secondary-dark', [['status', report.status]]);
  if (report.ttftPerceived) entry('first token painted', t0, report.ttftPerceived.painted, 'primary-dark', [['verdict', report.diagnosis?.[0]?.verdict || '']]);
}
