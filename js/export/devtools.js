// The console summary of `profiler.print()`, and whether this engine's DevTools show the track
// (js/perftrack.js, imported only with the `devtools` option).

/**
 * Whether this engine's DevTools show custom tracks (`performance.measure` with
 * `detail.devtools`): Chromium's do, and nothing else's. No feature can be detected for it, so
 * the engine is: `navigator.userAgentData` exists only in Chromium-based browsers.
 */
export function devtoolsTracks() {
  const data = typeof navigator === 'object' && navigator ? /** @type {any} */ (navigator).userAgentData : undefined;
  return !!(data && Array.isArray(data.brands) && data.brands.some((/** @type {{ brand: string }} */ b) => /Chrom/.test(b.brand)));
}

/**
 * A few lines for the console: the last report's headline and the summary's percentiles.
 * @param {import('../report.js').Report | null} report
 * @param {import('../report.js').Summary | null} summary
 */
export function summaryText(report, summary) {
  const ms = (/** @type {number | null | undefined} */ v) => (v === null || v === undefined ? '—' : `${Math.round(v)} ms`);
  const lines = [];
  if (report) {
    lines.push(`tokenpaint #${report.id} ${report.format} ${report.status}: TTFT ${ms(report.ttft)} (painted ${ms(report.ttftPerceived?.painted)}), E2E ${ms(report.e2e)} (painted ${ms(report.e2ePerceived?.painted)}), lag p50 ${ms(report.lag?.p50)}`);
    for (const v of report.diagnosis || []) {
      const why = v.missing ? ` (missing: ${v.missing.join(', ')})` : v.place ? ` (at: ${v.place})` : '';
      lines.push(`  ${v.verdict}${why}: ${v.fix}`);
    }
  }
  if (summary && summary.count) {
    lines.push(`tokenpaint summary of ${summary.count} streams (p50 / p95 / p99):`);
    for (const k of ['ttft', 'ttftPerceived', 'e2ePerceived', 'tpot', 'lag', 'freeze', 'inputDuration']) {
      const p = /** @type {import('../report.js').Percentiles | undefined} */ (/** @type {Record<string, unknown>} */ (/** @type {unknown} */ (summary))[k]);
      if (p && (p.count || k !== 'inputDuration')) lines.push(`  ${k.padEnd(14)} ${ms(p.p50)} / ${ms(p.p95)} / ${ms(p.p99)}`);
    }
    // A frame rate is better high: its low percentiles are the bad answers.
    const fps = summary.fps;
    if (fps && fps.count) lines.push(`  ${'fps'.padEnd(14)} ${fps.p50 === null ? '—' : Math.round(fps.p50)} median, ${summary.droppedFrames.p95 ?? '—'} frames dropped at p95`);
    for (const v of summary.diagnosis || []) lines.push(`  ${v.verdict}: ${v.fix}`);
  }
  return lines.join('\n');
}
