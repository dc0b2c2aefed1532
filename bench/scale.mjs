// Scale: the core's whole cost per token for answers of 1k, 10k and 100k characters, as a page
// appending each delta drives it: one chunk per token, the appended text, a painted frame every
// three tokens, then the report. Median of `rounds`; the report's cost is also given alone.
import { fileURLToPath } from 'node:url';
import { Core, calls, openBench } from './core.mjs';
import { MARKDOWN, tokenize } from '../scripts/sim.mjs';

const enc = new TextEncoder();
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

export function workload(chars) {
  let md = '';
  while (md.length < chars) md += MARKDOWN + '\n';
  const tokens = tokenize(md.slice(0, chars), 9);
  const chunks = tokens.map((x) => enc.encode(`data: ${JSON.stringify({ choices: [{ delta: { content: x } }] })}\n\n`));
  return { tokens, chunks };
}

export function run({ tokens, chunks }) {
  const core = new Core();
  const id = openBench(core, 'auto');
  let units = 0;
  const t0 = performance.now();
  for (let i = 0; i < tokens.length; i++) {
    const t = 10 + i * 5;
    core.chunk(id, chunks[i], t, false, NaN);
    core.render(id, tokens[i], units, t + 1);
    units += tokens[i].length;
    if (i % 3 === 2) calls.painted(core, { frame: t + 2, cutoff: t + 2, after: t + 4, since: NaN });
  }
  calls.painted(core, { frame: tokens.length * 5 + 20, cutoff: tokens.length * 5 + 20, after: tokens.length * 5 + 24, since: NaN });
  core.end(id, 0, tokens.length * 5 + 30, '');
  const t1 = performance.now();
  const report = JSON.parse(core.finish(id, true, false));
  const t2 = performance.now();
  core.free();
  return { total: t2 - t0, report: t2 - t1, matched: report.matchedPct, deltas: report.deltas };
}

export function runScale(rounds = 7) {
  for (let i = 0; i < 5; i++) run(workload(10000)); // warm-up
  const rows = [];
  for (const chars of [1000, 10000, 100000]) {
    const w = workload(chars);
    const xs = Array.from({ length: rounds }, () => run(w));
    const total = median(xs.map((x) => x.total));
    const report = median(xs.map((x) => x.report));
    const n = w.tokens.length;
    rows.push({ chars, tokens: n, total, report, usPerToken: (total * 1000) / n, reportUsPerToken: (report * 1000) / n, matched: xs[0].matched });
  }
  return { rounds, rows, growth: rows[2].usPerToken / rows[0].usPerToken };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = runScale();
  for (const x of r.rows) console.log(`${String(x.chars).padStart(6)} chars ${String(x.tokens).padStart(6)} tokens ${x.total.toFixed(2).padStart(8)} ms ${x.usPerToken.toFixed(2).padStart(6)} µs/token, report ${x.report.toFixed(2)} ms (${x.reportUsPerToken.toFixed(2)} µs/token), matched ${x.matched}%`);
  console.log(`100k vs 1k per token: ${r.growth.toFixed(2)}x`);
}
