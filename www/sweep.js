// The lab's concurrency sweep, the part that needs no page: each level's figures from the
// reports of its profiled answers, where queueing starts, the table and the chart.

export const PHASES = ['queue', 'prefill', 'network', 'decode', 'intermediary', 'client'];

/** The q-quantile (0..1) of `xs` by linear interpolation; null when empty. */
export function quantile(xs, q) {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return null;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
}

const pcts = (xs) => ({ p50: quantile(xs, 0.5), p95: quantile(xs, 0.95), p99: quantile(xs, 0.99) });

/**
 * One level's figures from its answers (`{ report, truth }`, truth: the server's own queue
 * wait where it tells it, and `seen`, its slot's time from the page's start): perceived TTFT and E2E percentiles, each phase's median, the server's
 * own timings (medians), and how the queue was known.
 */
export function levelStats(level, entries) {
  const reports = entries.map((e) => e.report);
  const pick = (f) => reports.map(f).filter(Number.isFinite);
  const phase = (r, name) => r.phases?.find((p) => p.name === name) ?? null;
  const phases = Object.fromEntries(PHASES.map((n) => [n, quantile(pick((r) => phase(r, n)?.ms), 0.5)]));
  const sources = [...new Set(reports.map((r) => phase(r, 'queue')?.source).filter(Boolean))];
  return {
    level,
    n: reports.length,
    ttft: pcts(pick((r) => r.ttftPerceived?.painted)),
    e2e: pcts(pick((r) => r.e2ePerceived?.painted)),
    phases,
    queueSource: sources.join(', ') || null,
    server: {
      queue: quantile(entries.map((e) => e.truth?.queue ?? e.report.serverTimings?.queue), 0.5),
      // The slot's time from the page's start (the built-in server only), null where unknown.
      queueSeen: quantile(entries.map((e) => e.truth?.seen).filter(Number.isFinite), 0.5),
      prefill: quantile(pick((r) => r.serverTimings?.prefill ?? r.serverTimings?.ttft), 0.5),
      decode: quantile(pick((r) => r.serverTimings?.decode), 0.5),
    },
    verdicts: [...new Set(reports.map((r) => r.diagnosis?.[0]?.verdict).filter(Boolean))],
  };
}

/** A queue that matters: over 50 ms and a tenth of the perceived TTFT. */
export const QUEUE_MS = 50;

/** The first level whose median queue matters; null if none; undefined if no queue is known. */
export function queueStarts(levels) {
  if (!levels.some((l) => l.phases.queue !== null)) return undefined;
  return levels.find((l) => l.phases.queue !== null && l.phases.queue > Math.max(QUEUE_MS, 0.1 * (l.ttft.p50 ?? 0)))?.level ?? null;
}

/** One sentence on where queueing starts. */
export function sweepSays(levels) {
  const at = queueStarts(levels);
  const top = levels.at(-1)?.level;
  if (at === undefined) return 'The queue is unknown at every level: the server reports no queue, and its headers and prefill do not let tokenpaint derive one.';
  if (at === null) return `No queueing up to ${top} streams at once: every answer found a free slot.`;
  const l = levels.find((x) => x.level === at);
  const share = l.ttft.p50 ? Math.round((100 * l.phases.queue) / l.ttft.p50) : null;
  return `Queueing starts at ${at} streams at once: the median answer waited ${Math.round(l.phases.queue)} ms for a slot${share === null ? '' : ` (${share}% of its perceived TTFT)`}. That is capacity (more slots or replicas, admission control), not a single-request fix.`;
}

const ms = (v) => (v === null || v === undefined ? '—' : `${Math.round(v)}`);

/** The table's rows: a header and a row per level. */
export function sweepRows(levels) {
  const head = ['streams', 'answers', 'TTFT p50 / p95 / p99', 'E2E p50 / p95 / p99', ...PHASES.map((p) => `${p} p50`), 'server queue', 'server prefill', 'server decode'];
  const rows = levels.map((l) => [
    String(l.level),
    String(l.n),
    `${ms(l.ttft.p50)} / ${ms(l.ttft.p95)} / ${ms(l.ttft.p99)}`,
    `${ms(l.e2e.p50)} / ${ms(l.e2e.p95)} / ${ms(l.e2e.p99)}`,
    ...PHASES.map((p) => ms(l.phases[p])),
    ms(l.server.queue),
    ms(l.server.prefill),
    ms(l.server.decode),
  ]);
  return [head, ...rows];
}

/**
 * The chart on a 2D context of W×H: per level, a bar of the phases' medians (stacked, in order),
 * and the perceived TTFT and E2E at p50 (dots) and p95 (rings).
 */
export function drawSweep(g, W, H, levels, colors) {
  const left = 48;
  const bottom = H - 22;
  const top = 10;
  const max = Math.max(1, ...levels.flatMap((l) => [l.e2e.p95, l.e2e.p99, PHASES.reduce((a, p) => a + (l.phases[p] ?? 0), 0)].filter(Number.isFinite)));
  const y = (v) => bottom - ((bottom - top) * v) / max;
  const slot = (W - left - 10) / Math.max(1, levels.length);
  g.font = '11px system-ui, sans-serif';
  g.fillStyle = '#475569';
  g.strokeStyle = '#e2e8f0';
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    g.beginPath();
    g.moveTo(left, y(v));
    g.lineTo(W - 10, y(v));
    g.stroke();
    g.textAlign = 'right';
    g.fillText(`${Math.round(v)} ms`, left - 4, y(v) + 4);
  }
  levels.forEach((l, i) => {
    const x = left + i * slot + slot * 0.2;
    const w = slot * 0.35;
    let at = 0;
    for (const p of PHASES) {
      const v = l.phases[p];
      if (!v) continue;
      g.fillStyle = colors[p];
      g.fillRect(x, y(at + v), w, y(at) - y(at + v));
      at += v;
    }
    const dot = (v, color, ring) => {
      if (!Number.isFinite(v)) return;
      g.beginPath();
      g.arc(x + w + slot * 0.15, y(v), 4, 0, 2 * Math.PI);
      if (ring) {
        g.strokeStyle = color;
        g.lineWidth = 2;
        g.stroke();
        g.lineWidth = 1;
      } else {
        g.fillStyle = color;
        g.fill();
      }
    };
    dot(l.ttft.p50, '#f59e0b', false);
    dot(l.ttft.p95, '#f59e0b', true);
    dot(l.e2e.p50, '#0f172a', false);
    dot(l.e2e.p95, '#0f172a', true);
    g.fillStyle = '#475569';
    g.textAlign = 'center';
    g.fillText(String(l.level), x + w / 2, H - 6);
  });
}
