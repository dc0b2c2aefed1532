// `npm run bench`: runs the benchmarks side by side in one run and rewrites BENCHMARKS.md with
// the tables, the budgets, the machine and the command. Not part of `npm test` (figures, not
// behaviour). ROUNDS, TOKENS (overhead) and SOAK_MB may be set for a quicker run; BASE (the base
// commit, default 277578c) and BASE_ROUNDS (its side-by-side rounds, default ROUNDS, at least 3)
// for the comparison against a base, whose ratio of two noisy medians wants more rounds.
import { readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { run as parser } from './parser.mjs';
import { runAlign } from './align.mjs';
import { runScale } from './scale.mjs';
import { runOverhead } from './overhead.mjs';
import { runMemory } from './memory.mjs';
import { runLongTasks } from './longtasks.mjs';
import { runConversation } from './conversation.mjs';
import { runReact } from './react.mjs';
import { runCallbacks } from './callbacks.mjs';
import { runLearning } from './learning.mjs';
import { sizes, BUDGET, STUB_BUDGET, CRITICAL_BUDGET } from '../scripts/size.mjs';
import { namedBuild, top, compiled, monos } from '../scripts/wasmtop.mjs';
import { floor } from '../scripts/floor.mjs';
import { ENTRY_POINTS } from './attribution.mjs';
import { runBase } from './base.mjs';

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
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const kb = (n) => (n / 1024).toFixed(1);
const mib = (n) => (n / 2 ** 20).toFixed(1);

console.log('\n== main-thread overhead (Chromium)');
const ov = await runOverhead({ rounds, tokens: Number(process.env.TOKENS || 20000) });
console.log(ov);

console.log('\n== long tasks (report at 100,000 tokens, summary over 1,000 reports)');
const lt = await runLongTasks({ tokens: 100000, reports: 1000 });

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

console.log('\n== long conversations (0, 50, 200 earlier answers in the container)');
const conv = await runConversation({ rounds: Math.max(rounds, 5) });

console.log('\n== a React chat (React 19, react-markdown, a render per delta)');
const re = await runReact({ rounds: Math.max(rounds, 3), profileRounds: Math.max(rounds, 3) });
console.log(re);
const cb = await runCallbacks({ rounds: Math.max(rounds, 3) });
console.log(cb);

console.log('\n== learning an app the page shows, against its reader (recorded apps, replayed)');
const lrn = await runLearning({ rounds: Math.max(rounds, 5) });

// Against a base commit (BASE, default 277578c: before issues 47-50), side by side in this run.
const baseCommit = process.env.BASE || '277578c';
console.log(`\n== tokenpaint's own time against ${baseCommit} (bench/base.mjs)`);
const bs = await runBase({ commit: baseCommit, rounds: Number(process.env.BASE_ROUNDS) || Math.max(rounds, 3), tokens: 6000 });

const sz = sizes();
const fl = await floor();
const total = sz.find((r) => r.name.startsWith('total'));
const stub = sz.find((r) => r.name.startsWith('stub'));
console.log('\n== where the wasm bytes go');
let wt = null;
let rustc = null;
let mono = null;
try {
  wt = top(namedBuild(), 20);
  rustc = top(compiled(), 20);
  mono = monos(compiled(), 10);
} catch (e) {
  console.log(`no named build: ${e.message}`);
}
const clean = (name) => name.replace(/::h[0-9a-f]{16}$/, '').replace(/\[[0-9a-f]{16}\]/g, '');
// At the start of issue 17 (commit ce67133), from the same named build: raw bytes.
const BEFORE = {"total":173579,"groups":[["exports (wasm-bindgen wrappers, with what they inline)",64551],["tokenpaint::read::wire",28985],["Rust standard library (fmt, str, panics, collections)",16316],["tokenpaint::timeline::session",15503],["data (strings, tables)",13379],["tokenpaint::aggregate::summary",8401],["tokenpaint::read::jsonscan",6846],["tokenpaint::read::servertiming",4926]],"top":[["core_finish multivalue shim",31128],["data[0]",12219],["tokenpaint::timeline::session::Timeline::event",11269],["core_open",6797],["tokenpaint::read::servertiming::timings",4083],["tokenpaint::timeline::session::Timeline::wire",3668],["core_chunk",3499],["tokenpaint::aggregate::summary::Group::write",3236],["core_rendered",2884],["core_claims",2646]]};
// At the start of issue 60's size work (commit 803fc10): the shipped module, names kept.
const BEFORE60 = {"commit":"803fc10","total":190748,"groups":[["exports (wasm-bindgen wrappers, with what they inline)",71500],["tokenpaint::read::wire",28944],["Rust standard library (fmt, str, panics, collections)",17053],["data (strings, tables)",14083],["tokenpaint::timeline::state",13271],["tokenpaint::summary",10155],["tokenpaint::read::jsonscan",7637],["tokenpaint::stats",4433],["other",3904],["tokenpaint::timeline::align",2690],["tokenpaint::read::servertiming",2674],["tokenpaint::read::sse",2439],["tokenpaint::jsonwrite",2113],["tokenpaint::read::utf8",1563],["tokenpaint::timeline::session",1406],["tokenpaint::read::lines",1176],["tokenpaint::timeline::blocked",1124],["tokenpaint::figures",625],["tokenpaint::read::events",548],["tokenpaint::alloc",409],["tokenpaint::figures::phases",368],["tokenpaint::figures::report",357],["tokenpaint::streams",319],["tokenpaint::timeline::record",266],["tokenpaint::figures::page",233],["tokenpaint::saved",224],["tokenpaint::timeline::entries",198],["tokenpaint::figures::diagnosis",198],["tokenpaint::figures::last_paint",188],["tokenpaint::figures::delivery",160],["tokenpaint::figures::growth",109],["tokenpaint::figures::catalog",103],["tokenpaint::figures::facts",82],["tokenpaint::find",80],["tokenpaint::figures::counts",45],["tokenpaint::figures::coarsen",43],["tokenpaint::figures::round",28]],"top":[["core_finish multivalue shim",46905],["tokenpaint::timeline::state::Timeline::event",9722],["data[0]",8822],["core_open",3747],["tokenpaint::timeline::state::Timeline::wire",3389],["tokenpaint::summary::Group::write",3374],["core_configure",2409],["tokenpaint::read::wire::ollama::event::{{closure}}",2404],["tokenpaint::read::wire::read_usage::{{closure}}",2395],["tokenpaint::read::servertiming::timings",2153],["core_claims",2054],["tokenpaint_scan::jsonscan::Scanner::string_into",1799],["tokenpaint::read::wire::llamacpp::event::{{closure}}",1752],["tokenpaint::timeline::align::Aligner::rendered",1723],["tokenpaint::read::wire::openai::event::{{closure}}",1700],["data[6]",1601],["tokenpaint_scan::jsonscan::Scanner::object",1461],["core_end",1372],["tokenpaint_scan::sse::SseFramer::process_line",1289],["core_describe",1208]]};
// Retained: what the core keeps (counted natively, byte for byte) and what the JS heap keeps.
// The wasm memory's growth is the peak (it never shrinks), shown beside it.
const retained = (mem.native ? mem.native.perToken : NaN) + mem.jsPerToken;

// The profile's ratio, or why there is none.
const ownShown = ov.ownRatio === null ? 'unavailable (no sample of the profiled page had a tokenpaint frame)' : `${f2(ov.ownRatio)}×`;
const longOk = ov.loafWith.tokenpaints === 0 && lt.report.tokenpaints === 0 && lt.summary.tokenpaints === 0;
const budgets = [
  ['Size: the full package (wasm + JS) ≤ 40 KB gzip (stretch 25 KB)', `${kb(total.gzip)} KB gzip`, total.gzip <= BUDGET],
  ['Size: the stub an unsampled page imports (tokenpaint/lazy) ≤ 2 KB gzip', `${kb(stub.gzip)} KB gzip`, stub.gzip <= STUB_BUDGET],
  ['Size: JS before the app\'s first paint ≤ 8 KB gzip', `${kb(stub.gzip)} KB gzip with tokenpaint/lazy (the stub); ${kb(sz.find((r) => r.name.startsWith('js bundled')).gzip)} KB when the full entry is imported up front`, stub.gzip <= CRITICAL_BUDGET],
  // Both measures must hold: tokenpaint's own time from the CPU profile is steady but not exact;
  // the TaskDuration difference counts everything but is as noisy as what it measures.
  ['Main thread: tokenpaint\'s own work on top of the floor ≤ 0.25× the reference page\'s parse (stretch 0.1×), by CPU profile and by TaskDuration', `${f2(ov.profOnFloorRatio)}× by CPU profile (rounds ${ov.profOnFloorRatios.map(f2).join(', ')}; tokenpaint's own ${ownShown} in all, the floor's ${f2(ov.profFloorRatio)}×); ${f2(ov.onFloorRatio)}× by TaskDuration (${ov.floorTokens} tokens, ${ov.floorRoundsRun} rounds; the floor ${f2(ov.observedFloorRatio)}×, tokenpaint ${f2(ov.floorAddedRatio)}×)`, ov.profOnFloorRatio <= 0.25 && ov.onFloorRatio <= 0.25],
  ['Main thread: added time per token, in all (evidence: the earlier budget, ≤ 1× the parse)', `${ownShown} by CPU profile (${f1(ov.ownPerThousand)} ms per 1,000 tokens; rounds ${ov.ownRatios.map(f2).join(', ')}); ${f2(ov.ratio)}× by the TaskDuration difference (${f1(ov.perThousand)} ms per 1,000 tokens, parse ${f1((ov.parse / ov.tokens) * 1000)} ms)`, null],
  ['Main thread: under 1 ms per frame at 100 tokens/s', `${f2(ov.perFrame)} ms per frame at 200 tokens/s (an upper bound)`, ov.perFrame < 1],
  ['No long task (≥ 50 ms) caused by tokenpaint: the 20,000-token run, the report at 100,000 tokens, summary() over 1,000 reports', `${ov.loafWith.tokenpaints} / ${lt.report.tokenpaints} / ${lt.summary.tokenpaints} long frames tokenpaint's (of ${ov.loafWith.long} / ${lt.report.long} / ${lt.summary.long})`, longOk],
  ['Parse throughput ≥ 2× eventsource-parser + JSON.parse', `${f2(p.ratio)}×`, p.ratio >= 2],
  ['Memory: ≤ 64 bytes retained per token (100,000 tokens)', `${f1(retained)} B retained (core ${mem.native ? f1(mem.native.perToken) : '?'} + JS heap ${f1(mem.jsPerToken)}); peak wasm growth ${f1(mem.wasmPerToken)} B per token`, retained <= 64],
  ['Memory: a cap past which per-token detail is decimated, aggregates exact', `maxTokenDetail (default 8192 records): ${mem.with.report.records} records kept for ${mem.tokens} tokens`, mem.with.report.records <= 8192],
  ['A React chat (React 19 in StrictMode, react-markdown, a render per delta): tokenpaint adds ≤ 2% of the page\'s own main-thread time', `${pct(re.share)} by TaskDuration (rounds ${re.shares.map(pct).join(', ')}); ${pct(re.ownShare)} by CPU profile (tokenpaint's own ${f1(re.own)} ms against the page's ${f1(re.busy)} ms; rounds ${re.ownShares.map(pct).join(', ')}); matched ${re.matched}%. The floor alone, one bracket per commit: ${pct(re.floorShare)} by TaskDuration, ${pct(re.floorOwnShare)} by CPU profile. Callbacks timed in the page: tokenpaint's ${pct(cb.ownShare)}, the floor's ${pct(cb.floorShare)}`, re.share <= 0.02 && re.ownShare <= 0.02],
  ['Long conversations: cost per token with 0, 50 and 200 earlier answers in the container flat within 1.3×, matched 100%', `${f2(conv.growth)}× (${conv.rows.map((r) => `${r.earlier}: ${f1(r.msPerThousand)} ms per 1,000 tokens`).join(', ')}); matched ${conv.rows.map((r) => `${r.matched}%`).join(', ')}`, conv.growth <= 1.3 && conv.rows.every((r) => r.matched === 100)],
  ['Scale: cost per token flat from 1k to 100k characters (within 2×)', `${f2(sc.growth)}× (whole core per token), ${f2(alignGrowth)}× (alignment per update)`, sc.growth <= 2 && alignGrowth <= 2],
];

// Entry points of 1% of tokenpaint's own time or more get a row each; the rest one row.
const major = ov.parts.filter((r) => r.ms >= ov.own / 100);
const minor = ov.parts.filter((r) => r.ms < ov.own / 100);

const md = `# Benchmarks

Written by \`${['ROUNDS', 'TOKENS', 'SOAK_MB', 'BASE', 'BASE_ROUNDS'].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]} `).join('')}npm run bench\` on ${new Date().toISOString().slice(0, 10)} (commit ${sh('git rev-parse --short HEAD')}).
Machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${sh('/usr/bin/chromium --version')}.
Figures on these machines are noisy: compare rows of one run, read ratios and medians.

## Budgets

| budget | measured | holds |
|---|---|---|
${budgets.map(([b, m, ok]) => `| ${b} | ${m} | ${ok === null ? '–' : ok ? 'yes' : '**no**'} |`).join('\n')}

## What it costs, in short

${readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), 'costs.md'), 'utf8').trim()}

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
- **The floor of bracketing every frame:** a third page, the same page without tokenpaint but with
  the paint clock's two calls per frame and nothing in them (a rAF callback that posts a
  user-blocking task, which requests the next frame), over a ${ov.floorTokens.toLocaleString('en')}-token answer (${ov.floorRoundsRun} rounds, the four pages
  side by side: the page's own layout, and its noise, is smaller there). It added ${f1(ov.floor)} ms, **${f2(ov.floorRatio)}×** the
  parse (rounds ${ov.floorRounds.map((x) => x.toFixed(0)).join(', ')} ms), where tokenpaint added ${f1(ov.floorAdded)} ms, ${f2(ov.floorAddedRatio)}× (parse ${f1(ov.floorParse)} ms).
- **With a commit observer:** a fourth page runs the same loop and a MutationObserver on the
  answer's container whose callback takes the time and reads the text nodes added: the least an
  instrument that times every commit and every paint runs. It added ${f1(ov.observedFloor)} ms, **${f2(ov.observedFloorRatio)}×** the parse
  (rounds ${ov.observedFloorRounds.map((x) => x.toFixed(0)).join(', ')} ms): ${Math.round(ov.observedFloorRatio * 100)}% of the 1× budget spent before tokenpaint does any work of
  its own. On this page (a token every ${ov.tokenMs} ms, ${f1((ov.floorParse / ov.floorTokens) * 1000)} µs of parse per token), ${ov.observedFloorRatio >= 1 ? 'an instrument with tokenpaint\'s commit and paint precision cannot meet the budget by making its own work cheaper' : `it leaves ${f2(1 - ov.observedFloorRatio)}× the parse for everything else tokenpaint does`}. What tokenpaint adds on top of this floor, in the same rounds: ${f2(ov.onFloorRatio)}× the parse.

That difference is as noisy as what it measures (its rounds here: ${ov.addedRounds.map((x) => x.toFixed(0)).join(', ')} ms
added). tokenpaint's own time is measured a second way, steadier: the same run under the CPU
profiler (V8's sampler, every ${ov.sampleUs} µs, both pages side by side, ${ov.profileRounds} rounds), where a sample is
tokenpaint's when one of its frames (\`js/\`, \`pkg/\`) is on the stack, the browser calls it makes
included (DOM reads, \`requestAnimationFrame\`, \`postTask\`, the tap's stream reads, the wasm
module). It is neither a bound nor exact: what the browser does for tokenpaint outside its
frames (the MutationRecords made while the app appends) is not in it, and a rAF request that
schedules the next frame is counted whole, though the app's next append would have scheduled it
too (the app's \`append\` measured 85 to 96 ms with tokenpaint, 100 to 133 ms without it, in one
4,000-token run). The sampler slows both pages alike, so its ratio is to the page's parse in the
same rounds.

- The floor (\`bench/pages/floor.js\`, the frame loop and the commit observer, on a third page in the same rounds), counted the same way: ${f1(ov.profFloor)} ms, ${f2(ov.profFloorRatio)}× the parse. tokenpaint on top of it: **${f2(ov.profOnFloorRatio)}×** (rounds ${ov.profOnFloorRatios.map(f2).join(', ')}).
- tokenpaint's own time: **${f1(ov.own)} ms** (${f1(ov.ownPerThousand)} ms per 1,000 tokens; ${f1(ov.ownWithout)} ms attributed on the page without it, the method's error); the page's parse in those rounds: ${f1(ov.ownParse)} ms. **${ownShown}** (rounds: ${ov.ownRatios.map(f2).join(', ')}).

| entry point (outermost tokenpaint frame) | what it is | ms | share |
|---|---|---:|---:|
${major.map((r) => `| \`${r.name}\` | ${ENTRY_POINTS[r.name] || ''} | ${f1(r.ms)} | ${Math.round((r.ms / ov.own) * 100)}% |`).join('\n')}
| ${minor.length} other entry points | each under 1% (opening a stream, the report, long frames, Resource Timing) | ${f1(minor.reduce((a, r) => a + r.ms, 0))} | |

## Against a base commit

tokenpaint's own main-thread time (CPU profile, as above) on the same ${bs.tokens.toLocaleString('en')}-token answer, this
tree's build and the base's (built in a clone of its own, \`npm run bench:base -- <commit>\`)
profiled round by round in this run; median of ${bs.rounds} rounds. A change that raises the own time
by more than 5% against its base says so in its issue note, with the reason.

| build | own, ms | the floor, ms | the page's parse, ms | own on top of the floor | rounds |
|---|---:|---:|---:|---:|---|
| this (${bs.head}) | ${f1(bs.this.own)} | ${f1(bs.this.floor)} | ${f1(bs.this.parse)} | **${f2(bs.this.onFloor)}×** | ${bs.this.onFloors.map(f2).join(', ')} |
| base (${bs.base.slice(0, 12)}) | ${f1(bs.baseline.own)} | ${f1(bs.baseline.floor)} | ${f1(bs.baseline.parse)} | **${f2(bs.baseline.onFloor)}×** | ${bs.baseline.onFloors.map(f2).join(', ')} |

This against the base: own time **${f2(bs.this.own / bs.baseline.own)}×**, on top of the floor **${f2(bs.this.onFloor / bs.baseline.onFloor)}×**; matched ${bs.this.matched ?? '?'}%.
The largest entry points, this and base: ${bs.this.parts.slice(0, 5).map((x) => `\`${x.name}\` ${f1(x.ms)} ms`).join(', ')}; base ${bs.baseline.parts.slice(0, 5).map((x) => `\`${x.name}\` ${f1(x.ms)} ms`).join(', ')}.
The frame meter's own function (\`FrameMeter.#count\`, inside the shared frame callback): ${f1(bs.this.within['browser/frames.js:#count'] ?? bs.this.within['browser/frames.js:FrameMeter.#count'] ?? NaN)} ms.

## Long tasks

Long animation frames (50 ms or more; Chromium's \`long-animation-frame\` entries, with the
scripts that ran in them). A long frame is tokenpaint's when its scripts from \`js/\` or \`pkg/\`
take more than half of it.

| moment | long frames | tokenpaint's | tokenpaint's longest script time in one, ms |
|---|---:|---:|---:|
| the ${ov.tokens.toLocaleString('en')}-token run above, every round (the page without tokenpaint: ${ov.loafWithout.long}) | ${ov.loafWith.long} | ${ov.loafWith.tokenpaints} | ${f1(ov.loafWith.worstMs)} |
| the report of a ${lt.tokens.toLocaleString('en')}-token answer, timeline included (after the body) | ${lt.report.long} | ${lt.report.tokenpaints} | ${f1(lt.report.worstMs)} |
| \`summary()\` over ${lt.reports.toLocaleString('en')} reports (it took ${f1(lt.summaryMs)} ms) | ${lt.summary.long} | ${lt.summary.tokenpaints} | ${f1(lt.summary.worstMs)} |

The observer does see long frames: while that answer's body was read at full socket speed (no
delay between tokens), the page's own read loop made ${lt.body}.

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
${mem.native ? `- **Core alone** (native, live heap bytes counted by an allocator wrapper, \`tests/native/memory.rs\`): ${mem.native.bytes} B
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

## A React chat

A page like the ones users ship (\`bench/pages/react.jsx\`): React 19 in StrictMode, each answer
rendered by react-markdown, the whole answer re-rendered on every delta (a \`setState\` per
delta), the stream read with a reader, \`TextDecoder\` and eventsource-parser; with tokenpaint,
\`profiler.fetch\` and \`observe\` on the chat. ${re.tokens} tokens, one every ${re.tokenMs} ms.

Beside it, the floor (\`bench/pages/floor.js\`) on React pages of its own, with nothing but a
MutationObserver on the chat that takes the time and reads the added text: **bracket**, one frame
bracketed per commit (the frame's start and its after-paint mark: what any instrument with
tokenpaint's precision pays at least), and **frame**, the frame's start alone per commit (what any
instrument that marks the painted frame pays). tokenpaint keeps bracketing frames for three idle
frames after the last commit (so that a commit made inside a rAF callback is given its own frame),
so on this page, which commits every ${re.tokenMs} ms, it brackets every frame.

- TaskDuration (CDP, thread ticks), ${re.rounds} rounds, one page at a time in an order that turns each round: the page alone ${f1(re.taskWithout)} ms; tokenpaint adds ${f1(re.added)} ms, **${pct(re.share)}** (rounds ${re.shares.map(pct).join(', ')}). The bracket floor adds **${pct(re.floorShare)}** (rounds ${re.floorShares.map(pct).join(', ')}), the frame floor ${pct(re.frameShare)} (rounds ${re.frameShares.map(pct).join(', ')}).
- CPU profile, ${re.profileRounds} rounds, the three pages side by side: tokenpaint's own ${f1(re.own)} ms against the page's busy ${f1(re.busy)} ms (the sampler slows both alike): **${pct(re.ownShare)}** (rounds ${re.ownShares.map(pct).join(', ')}); the bracket floor's own ${f1(re.floorOwn)} ms, **${pct(re.floorOwnShare)}** (rounds ${re.floorOwnShares.map(pct).join(', ')}).
- Callbacks timed in the page (\`bench/callbacks.mjs\`: every observer, rAF, postTask, timer and idle callback wrapped before any script runs, no profiler; the tap's read continuations are not callbacks and are not counted), ${cb.rounds} rounds: tokenpaint's ${f1(cb.own)} ms, **${pct(cb.ownShare)}** of the page's ${f1(cb.page)} ms (rounds ${cb.ownShares.map(pct).join(', ')}); the bracket floor's ${f1(cb.floor)} ms, **${pct(cb.floorShare)}** (rounds ${cb.floorShares.map(pct).join(', ')}); tokenpaint on top of the floor ${pct(cb.onTopShare)}. With \`observe()\` of the whole document (the extension's way) in place of the chat's container: ${f1(cb.document)} ms, **${pct(cb.documentShare)}** (rounds ${cb.documentShares.map(pct).join(', ')}).
- Verdicts with tokenpaint: ${re.verdicts.join(', ')}; matched ${re.matched}%.

## Long conversations

The same ${conv.tokens.toLocaleString('en')}-token answer (one token every ${conv.tokenMs} ms) streamed into the reference chat
page's observed container when it already holds 0, 50 or 200 earlier answers (about 2,000
characters each). tokenpaint's own time is the CPU profile's samples with its frames on the
stack; the sizes alternate within each round. Median of ${conv.rounds} rounds.

| earlier answers | characters held | ms per 1,000 tokens (median) | rounds | matched |
|---:|---:|---:|---|---:|
${conv.rows.map((r) => `| ${r.earlier} | ${r.chars.toLocaleString('en')} | ${f1(r.msPerThousand)} | ${r.rounds.map(f1).join(', ')} | ${r.matched}% |`).join('\n')}

Cost per token, largest vs smallest median: **${f2(conv.growth)}×**.

## Learning an app's protocol

What learning costs the page (issues 58 and 71): the same recorded app (\`tests/recordings/\`,
replayed through real transports by \`scripts/replay-server.mjs\`) read by its reader and learned
from the page (\`appReaders: false\`), and without tokenpaint, side by side in each round, with the
injected script as the extension runs it. tokenpaint's own main-thread time is the CPU profile's
samples with a frame of its script or its wasm on the stack, from the question's Enter to the
report (\`bench/learning.mjs\`). Long frames: Chromium's long animation frames (50 ms or more)
after the Enter, in all the runs with tokenpaint, and how many its scripts took most of (those
without it beside them). Listener: how long each socket frame waited for the app's own listener
after its event was made (p95 / max), with tokenpaint learning and without it. Median of
${lrn[0] ? Math.max(rounds, 5) : 0} rounds.

| app | tokens | with its reader, ms | learned, ms | learned / reader | long frames (tokenpaint's; without it) | listener p95 / max, ms (without) | matched |
|---|---:|---:|---:|---:|---:|---:|---:|
${lrn.map((r) => `| ${r.app} | ${r.tokens} | ${r.reader === null ? '-' : f1(r.reader)} | ${f1(r.learned)} | ${r.ratio ? `${f2(r.ratio)}×` : '-'} | ${r.long} (${r.longOwn}; ${r.longBase}) | ${r.heard.learned.length ? `${f1(r.heardP95.learned)} / ${f1(r.heardMax.learned)} (${f1(r.heardP95.none)} / ${f1(r.heardMax.none)})` : '- (SSE)'} | ${r.matched}% |`).join('\n')}

## Size

What a page downloads (\`npm run size\`), in KB. The budget counts the wasm and the JavaScript as
a production bundler ships it (esbuild, bundled and minified).

| part | raw | gzip | brotli |
|---|---:|---:|---:|
${sz.map((r) => `| ${r.name} | ${kb(r.raw)} | ${kb(r.gzip)} | ${kb(r.brotli)} |`).join('\n')}

Issue 50 moved the verdicts' words out of the wasm into the verdict catalog (\`js/verdicts.js\`,
generated from \`src/verdicts.json\`): side by side, the wasm went from 78.5 to 75.7 KB gzip and
the minified JavaScript from 20.2 to 23.0 KB, the same in all (+0.05 KB). Saved timelines then
added the form's writer to the page's module (\`src/saved.rs\`, 2.7 KB gzip of wasm; 101,322 →
104,340 B in all, side by side against faad69c); reading it back, with the figures, the
diagnosis and the summary, is the analysis module's (\`pkg/analyse/\`), which pages never load.
Writing each saved number so that it reads back bit for bit (17 correctly rounded digits,
\`jsonwrite::write_exact\`) then cost 420 B gzip more (104,421 → 104,841 B, side by side against
0f5ef84); the analysis module reads them with a correctly rounded reader of its own
(\`saved::decimal\`, 128-bit integer arithmetic; Rust's \`str::parse\` would have added 19 KB gzip
to it).

**What a page needs before its first report** (\`npm run size:floor\`, gzip, in this run). The
40 KB budget asks that a page load first only what it needs while text streams (framing,
readers, the timeline, alignment), and the figures, diagnosis and summary once a stream has
ended. Built from a copy of the sources in which a stream's end writes only its saved timeline
(the form a second module would analyse) and the figures, the report's JSON, the diagnosis and
the summary are cut, so that the linker drops them:

| what | gzip (KB) |
|---|---:|
| wasm, whole (as shipped) | ${kb(fl.whole)} |
| wasm, live part (no figures, report, diagnosis, summary) | ${kb(fl.live)} |
| wasm, live part, OpenAI chat and plain text only | ${kb(fl.one)} |
| JavaScript, bundled + minified | ${kb(fl.js)} |
| JavaScript, without the verdict catalog's words | ${kb(fl.jsLive)} |
| **before the first report, at the least** (live one-format wasm + JavaScript) | **${kb(fl.least)}** |
| split at the report, in all (live wasm + the analysis module's wasm + JavaScript) | ${fl.split === null ? 'not built' : kb(fl.split)} |

Even reading one format, the live part and the JavaScript it needs are over the 40 KB budget by
${kb(fl.least - BUDGET)} KB before any report: the byte-level scanner (compiled for speed), the
alignment of the text shown with the text that arrived, the session and the shell's taps, watch
and paint clock are that much by themselves. And the budget's two parts pull apart: split at the
report, the page's second half is the analysis module (built and tested,
\`tests/native/saved.rs\`), and the two halves share the timeline's types, statistics and JSON, so
the whole such a page loads grows to ${fl.split === null ? 'more than it is unsplit' : `${kb(fl.split)} KB against ${kb(sz.find((r) => r.name.startsWith('total')).gzip)} KB unsplit`}. The
report's JSON writer alone (\`figures::report::to_json\` and what only it uses, its keys among
them) is 3,981 B gzip of the page's wasm, measured at 4975d8c by cutting it (80,309 → 76,328 B):
the most that moving the report's writing into JavaScript could take back, before the JavaScript
that would write it instead. Cut the same way, side by side: the diagnosis rules
(\`diagnosis::diagnose\`) are 5,124 B gzip, and the readers of the eight formats besides OpenAI
chat and plain text (Responses, Anthropic, Ollama, TGI, llama.cpp, the AI SDK's two, a JSON
document) 5,973 B.

### Where the wasm bytes go

Raw bytes of each function body and data segment of the page's module as shipped (what
\`twiggy top\` lists; \`node scripts/wasmtop.mjs\`): the build's own module through the same
wasm-bindgen and wasm-opt passes with its function names kept, checked to be the shipped module
byte for byte once they are cut out. An export's wrapper holds what wasm-opt inlined into it:
\`core_finish\` holds the figures, the report and the diagnosis. Before: commit ce67133, at the
start of issue 17, and 803fc10, at the start of issue 60's size work.

| where | ce67133 | 803fc10 | now |
|---|---:|---:|---:|
${wt ? (() => {
  const names = [...new Set([...BEFORE.groups.map(([g]) => g), ...BEFORE60.groups.slice(0, 8).map(([g]) => g), ...wt.groups.slice(0, 8).map(([g]) => g)])];
  const [old, b60, now] = [new Map(BEFORE.groups), new Map(BEFORE60.groups), new Map(wt.groups)];
  const cell = (m, g) => (m.has(g) ? m.get(g) : '–');
  return [...names.map((g) => `| ${g} | ${cell(old, g)} | ${cell(b60, g)} | ${cell(now, g)} |`), `| **total** | ${BEFORE.total} | ${BEFORE60.total} | ${wt.total} |`].join('\n');
})() : '| (no named build in this run) | | | |'}

The 20 largest items, at 803fc10 and now:

| item | 803fc10 | now |
|---|---:|---:|
${wt ? (() => {
  const now = new Map(wt.top.map((x) => [clean(x.name), x.size]));
  const b60 = new Map(BEFORE60.top);
  const names = [...new Set([...wt.top.map((x) => clean(x.name)), ...BEFORE60.top.map(([n]) => n)])];
  return names.map((n) => `| \`${n.slice(0, 90)}\` | ${b60.has(n) ? b60.get(n) : '–'} | ${now.has(n) ? now.get(n) : '–'} |`).join('\n');
})() : ''}

and at ce67133: ${BEFORE.top.map(([n, b]) => `${n} ${b}`).join(', ')}.

The same code as rustc left it, before wasm-opt inlined most of it into the exports: what each
Rust item costs by itself (${rustc ? rustc.total : '–'} B of bodies and data).

| bytes | item |
|---:|---|
${rustc ? rustc.top.map((x) => `| ${x.size} | \`${clean(x.name).slice(0, 90)}\` |`).join('\n') : ''}

Generics rustc compiled more than once (the same function but for its hash): ${mono ? `${mono.count}, ${mono.size} B in all; one copy of each would save ${mono.saved} B before wasm-opt` : '–'}. The ten that would save most:

| saved | copies | bytes | generic |
|---:|---:|---:|---|
${mono ? mono.top.map((m) => `| ${m.saved} | ${m.copies} | ${m.size} | \`${m.name.slice(0, 90).replace(/\|/g, '\\|')}\` |`).join('\n') : ''}
`;
writeFileSync(path.join(root, 'BENCHMARKS.md'), md);
console.log('\nwrote BENCHMARKS.md');
