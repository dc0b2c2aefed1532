// `npm run bench`: runs the benchmarks side by side in one run and rewrites BENCHMARKS.md with
// the tables, the budgets, the machine and the command. Not part of `npm test` (figures, not
// behaviour). ROUNDS, TOKENS (overhead) and SOAK_MB may be set for a quicker run.
import { writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { run as parser } from './parser.mjs';
import { runAlign } from './align.mjs';
import { runScale } from './scale.mjs';
import { runOverhead } from './overhead.mjs';
import { runMemory } from './memory.mjs';
import { sizes, BUDGET } from '../scripts/size.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sh = (cmd) => {
  try {
    return execSync(cmd, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};
const rounds = Number(process.env.ROUNDS || 5);
const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const kb = (n) => (n / 1024).toFixed(1);
const mib = (n) => (n / 2 ** 20).toFixed(1);

console.log('\n== main-thread overhead (Chromium)');
const ov = await runOverhead({ rounds, tokens: Number(process.env.TOKENS || 20000) });
console.log(ov);

console.log('\n== parser throughput');
const p = parser(Math.max(rounds, 7));
for (const r of p.rows) console.log(`${r.name.padEnd(34)} ${f1(r.ms).padStart(8)} ms ${f1(r.mbps).padStart(8)} MB/s`);
console.log(`ratio: ${f2(p.ratio)}x`);

console.log('\n== memory');
const mem = await runMemory({ soakMB: Number(process.env.SOAK_MB || 200) });

console.log('\n== scale');
const sc = runScale(Math.max(rounds, 7));
const al = runAlign(Math.max(rounds, 7));
const inc = al.rows.filter((r) => r.mode === 'incremental');
const alignGrowth = inc[inc.length - 1].usPerUpdate / inc[0].usPerUpdate;
console.log(sc.rows, `align growth ${f2(alignGrowth)}x`);

const sz = sizes();
const total = sz.find((r) => r.name.startsWith('total'));
// Retained: what the core keeps (counted natively, byte for byte) and what the JS heap keeps.
// The wasm memory's growth is the peak (it never shrinks), shown beside it.
const retained = (mem.native ? mem.native.perToken : NaN) + mem.jsPerToken;

const budgets = [
  ['Overhead: added main-thread time ≤ ½ of the reference page\'s parse time', `${f2(ov.ratio)}× (${f1(ov.added)} ms added, ${f1(ov.parse)} ms parse)`, ov.ratio <= 0.5],
  ['Overhead: under 1 ms per frame at 100 tokens/s', `${f2(ov.perFrame)} ms per frame at 200 tokens/s (an upper bound)`, ov.perFrame < 1],
  ['Size: wasm + JS glue ≤ 40 KB gzip', `${kb(total.gzip)} KB gzip`, total.gzip <= BUDGET],
  ['Memory: ≤ 64 bytes retained per token (100,000 tokens)', `${f1(retained)} B retained (core ${mem.native ? f1(mem.native.perToken) : '?'} + JS heap ${f1(mem.jsPerToken)}); peak wasm growth ${f1(mem.wasmPerToken)} B per token`, retained <= 64],
  ['Memory: a cap past which per-token detail is decimated, aggregates exact', `maxTokenDetail (default 8192 records): ${mem.with.report.records} records kept for ${mem.tokens} tokens`, mem.with.report.records <= 8192],
  ['Scale: cost per token flat from 1k to 100k characters (within 2×)', `${f2(sc.growth)}× (whole core per token), ${f2(alignGrowth)}× (alignment per update)`, sc.growth <= 2 && alignGrowth <= 2],
];

const md = `# Benchmarks

Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (commit ${sh('git rev-parse --short HEAD')}).
Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${sh('/usr/bin/chromium --version')}.
Figures on these machines are noisy: compare rows of one run, read ratios and medians.

## Budgets

| budget | measured | holds |
|---|---|---|
${budgets.map(([b, m, ok]) => `| ${b} | ${m} | ${ok ? 'yes' : '**no**'} |`).join('\n')}

## Main-thread overhead

The same ${ov.tokens.toLocaleString('en')}-token answer (one token every ${ov.tokenMs} ms from the demo server over
127.0.0.1) through the reference chat page (\`bench/pages/chat.js\`: reader + TextDecoder +
eventsource-parser + \`JSON.parse\` + one DOM append per token), without and with tokenpaint
(\`profiler.fetch\` + \`observe\`, report included). The two pages run side by side in each round.
CPU time of each renderer's main thread from the DevTools Protocol
(\`Performance.getMetrics\`, thread ticks); the reference page's parse time is measured in the page
around its parsing (5 µs timers: the page is cross-origin isolated). Median of ${ov.rounds} rounds; a run lasts ${f1(ov.runMs / 1000)} s.

| | without | with | added |
|---|---:|---:|---:|
| TaskDuration (all main-thread work), ms | ${f1(ov.taskWithout)} | ${f1(ov.taskWith)} | ${f1(ov.addedTask)} |
| of which layout + style recalculation, ms | ${f1(ov.layoutWithout)} | ${f1(ov.layoutWith)} | ${f1(ov.layoutWith - ov.layoutWithout)} |
| layouts | ${ov.layoutsWithout} | ${ov.layoutsWith} | |
| **the rest** (parsing, script, tasks), ms | ${f1(ov.restWithout)} | ${f1(ov.restWith)} | **${f1(ov.added)}** |
| ScriptDuration (callbacks Blink runs), ms | ${f1(ov.scriptWithout)} | ${f1(ov.scriptWith)} | ${f1(ov.addedScript)} |

tokenpaint reads text, never geometry, so it forces no layout of its own (the layout counts
match). The page's own layout of the growing answer is most of its main-thread time, and most
of the difference between two pages from run to run, so the added time is taken from the rest.

- Added per 1,000 tokens: **${f1(ov.perThousand)} ms**.
- The reference page's own parse time: ${f1(ov.parse)} ms (${f1((ov.parse / ov.tokens) * 1000)} ms per 1,000 tokens); tokenpaint adds **${f2(ov.ratio)}×** that.
- Added per frame (60 Hz, at ${1000 / ov.tokenMs} tokens/s): **${f2(ov.perFrame)} ms**.
- Alignment on the profiled page: ${ov.matched}% matched.

## Parser throughput

The same ${p.mb.toFixed(1)} MB OpenAI chat stream (${p.events} events) cut into the same ${p.chunks} chunks of 0.5–8 KB, read in
one Node process; median of ${p.rounds} interleaved rounds. tokenpaint is its wasm module (SSE framer + OpenAI
adapter + timeline, one call per chunk as in the browser); the reference is what chat apps run:
eventsource-parser (with TextDecoder) and \`JSON.parse\` of every event. Both count the same deltas.

| reader | median ms | MB/s |
|---|---:|---:|
${p.rows.map((r) => `| ${r.name} | ${f1(r.ms)} | ${f1(r.mbps)} |`).join('\n')}

tokenpaint / reference: **${f2(p.ratio)}x** (target: at least 2x).

## Memory

- **Browser, ${mem.tokens.toLocaleString('en')} tokens** appended one by one, measured at the end of the body before the
  report (the page without tokenpaint is the baseline): JS heap after GC +${mem.with.heap - mem.without.heap} B
  (**${f1(mem.jsPerToken)} B per token**), wasm memory growth ${mem.with.wasm} B (**${f1(mem.wasmPerToken)} B per token**; wasm memory
  never shrinks, so this is also the peak). ${mem.with.report.records} per-token records kept (\`detail.decimated\`: ${mem.with.report.records < mem.tokens}).
${mem.native ? `- **Core alone** (native, live heap bytes counted by an allocator wrapper, \`tests/memory.rs\`): ${mem.native.bytes} B
  after a 100,000-token answer, **${f1(mem.native.perToken)} B per token**. An answer nobody renders, after 0.5, 1, 1.5, 2 and
  2.5 million deltas: ${mem.native.rounds.map((b) => mib(b)).join(' / ')} MiB.` : '- Core alone: the native measurement failed.'}
- **${Math.round(mem.soak.bytes / 1e6)} MB stream** read by an app that never renders it (${mem.soak.events.toLocaleString('en')} events, ${f1(mem.soak.seconds)} s, report \`${mem.soak.report.status}\`,
  ${mem.soak.report.deltas.toLocaleString('en')} deltas, ${mem.soak.report.records} records kept):

  | MB read | ${mem.soak.samples.map((s) => s.mb).join(' | ')} |
  |---|${mem.soak.samples.map(() => '---:').join('|')}|
  | wasm memory, MiB | ${mem.soak.samples.map((s) => mib(s.wasm)).join(' | ')} |
  | JS heap (performance.memory), MiB | ${mem.soak.samples.map((s) => (s.heap === null ? '–' : mib(s.heap))).join(' | ')} |

## Scale

The core's whole cost per token (chunk, appended text, a frame every three tokens, then the
report) for answers of 1k, 10k and 100k characters; median of ${sc.rounds} rounds.

| answer | tokens | total ms | µs per token | report ms | matched |
|---:|---:|---:|---:|---:|---:|
${sc.rows.map((r) => `| ${r.chars.toLocaleString('en')} chars | ${r.tokens} | ${f2(r.total)} | ${f2(r.usPerToken)} | ${f2(r.report)} | ${r.matched}% |`).join('\n')}

Cost per token, 100k vs 1k characters: **${f2(sc.growth)}x**.

Alignment when the page re-renders the whole answer with marked every 25 characters; the core gets
the text the shell sends it (only what changed after the unchanged prefix). Core time only, median
of ${al.rounds} rounds. "from scratch" re-matches the whole text on every update (no checkpoints).

| answer | updates | mode | total ms | µs per update | matched |
|---:|---:|---|---:|---:|---:|
${al.rows.map((r) => `| ${r.chars.toLocaleString('en')} chars | ${r.updates} | ${r.mode} | ${f1(r.ms)} | ${f1(r.usPerUpdate)} | ${r.matched}% |`).join('\n')}

Cost per update, 100k vs 1k characters (incremental): **${f2(alignGrowth)}x**.

## Size

What a page downloads (\`npm run size\`), in KB. The budget counts the wasm and the JavaScript as
a production bundler ships it (esbuild, bundled and minified).

| part | raw | gzip | brotli |
|---|---:|---:|---:|
${sz.map((r) => `| ${r.name} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.brotli)} |`).join('\n')}
`;
writeFileSync(path.join(root, 'BENCHMARKS.md'), md);
console.log('\nwrote BENCHMARKS.md');
