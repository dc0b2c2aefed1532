// Issue 49's check, outside `npm test`: Streamdown 2.5.0 with its KaTeX plugin, fed by the AI
// SDK's `useChat` (@ai-sdk/react 3, its default transport) under React 19.3 in StrictMode, as
// AI Elements builds a chat; a long answer full of formulas (the simulator's content=math-long,
// in the AI SDK's UI message stream); profiled from Playwright with tokenpaint/playwright's
// `attach(page, { cpuThrottle: 4 })`, as a user's CI does on a slow device.
// `npm run real-apps streamdown` runs it (after installing tests/realapps/streamdown/package.json
// into $APPS/streamdown).
//
// RUNS (10) answers in each case (CASES, default all four):
// - `deferred`: Streamdown's default streaming mode, the answer's text passed through React's
//   useDeferredValue (as React's docs advise for a slow part of a page), while the user types a
//   follow-up into the prompt (React state, a key every 20 ms from 1.5 s on): each key press is
//   more urgent than the deferred render, which starts over. `client-updates-deferred`.
// - `direct`: the same with the text passed directly (the fix), and `directStatic`: passed
//   directly to Streamdown's direct-update mode: no such verdict, and a longest freeze a tenth
//   of the `deferred` runs' median or less.
// - `streaming` and `static`: Streamdown's two modes (`static` is its direct-update mode), no
//   typing: no deferral (Streamdown 2.5.0's own transition completes under React 19.3: a default
//   update does not interrupt a transition in progress), so no such verdict.
// Each run must also have: one report, status ok, matched ≥ 99%, no page error; perceived E2E
// (the frame that painted the answer's end) within a frame of the page's own; the longest
// freeze (`stalls.longest`) within a frame of the page's own longest freeze (arrived text
// waiting while no paint showed more of the answer, each paint between its frame's time and
// the next frame's; both under the stall threshold also passes); never
// `healthy` where the page's own median wait is over 100 ms.
// "A frame" is the page's own: the display's interval that the report measured under the
// throttle (16.7–67 ms at 4× here), 16.7 ms at the least, plus 2 ms of clock granularity.
// Prints a line per run and the counts; exits 1 if any check fails.
//   APPS: where the packages were installed (default /opt/tokenpaint-apps).
//   CASES, THROTTLE (4), QUERY (the simulator's), TICKER=1 (a status line beside the answer whose
//   clock store ticks every frame, read with useSyncExternalStore), DUMP=prefix (each report
//   and truth as JSON).
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { attach } from '../../js/playwright.js';
import { FRAME, setup } from '../support/helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const APPS = process.env.APPS || '/opt/tokenpaint-apps';
const RUNS = Number(process.env.RUNS) || 10;
const THROTTLE = Number(process.env.THROTTLE) || 4;
const CASES = {
  deferred: { mode: 'streaming', defer: true, type: 20 },
  direct: { mode: 'streaming', defer: false, type: 20 },
  directStatic: { mode: 'static', defer: false, type: 20 },
  streaming: { mode: 'streaming', defer: false, type: 0 },
  static: { mode: 'static', defer: false, type: 0 },
};
const MODES = (process.env.CASES || Object.keys(CASES).join(',')).split(',');
const QUERY = process.env.QUERY || 'format=ai-sdk-ui&content=math-long&paragraphs=8&ttft_ms=200&token_ms=15';

// The page, bundled from the installed packages (one React: the entry resolves its imports from
// $APPS/streamdown, where Streamdown, the AI SDK and React were installed together).
await build({
  entryPoints: [path.join(ROOT, 'tests/realapps/streamdown/app.jsx')],
  nodePaths: [path.join(APPS, 'streamdown/node_modules')],
  bundle: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  outdir: path.join(ROOT, 'tests/pages/streamdown-app'),
  entryNames: 'app',
  loader: { '.woff2': 'file', '.woff': 'file', '.ttf': 'file' },
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});

const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
const round = (x) => (x === null || x === undefined ? x : Math.round(x * 10) / 10);
const env = await setup();
const results = Object.fromEntries(MODES.map((m) => [m, []]));
try {
  for (const mode of MODES) for (let i = 0; i < RUNS; i++) results[mode].push(await once(mode, i));
} finally {
  await env.close();
}

let failed = 0;
// The fix's gain: the direct runs' longest freeze, a tenth of the deferred runs' median or less.
for (const fix of [results.direct, results.directStatic].filter((rs) => rs && results.deferred?.length)) {
  const tenth = median(results.deferred.map((r) => r.freeze)) / 10;
  for (const r of fix) if (!(r.freeze <= tenth)) (r.ok = false), r.why.push(`freeze ${r.freeze} ms > a tenth of the deferred median (${round(tenth)} ms)`);
}
for (const mode of MODES) {
  const rs = results[mode];
  const ok = rs.filter((r) => r.ok).length;
  failed += rs.length - ok;
  const col = (k) => rs.map((r) => r[k]).filter((x) => typeof x === 'number');
  for (const r of rs) if (!r.ok) console.log(`${mode} ${r.i}: ${r.why.join('; ')}`);
  console.log(
    `${mode}: ${ok} of ${rs.length} runs pass; verdicts ${[...new Set(rs.flatMap((r) => r.verdicts))].join(', ')}; ` +
      `longest freeze median ${round(median(col('freeze')))} ms (the page's ${round(median(col('pageFreeze')))} ms), |Δ| max ${round(Math.max(...col('diff')))} ms; ` +
      `|E2E − the page's last paint| max ${round(Math.max(...col('e2eDiff')))} ms; frame ${round(median(col('frame')))} ms; fps median ${round(median(col('fps')))}; blocked share median ${round(median(col('blocked')))}`,
  );
}
process.exit(failed ? 1 : 0);

async function once(name, i) {
  const { mode, defer, type } = CASES[name];
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const tp = await attach(page, { cpuThrottle: THROTTLE });
    if (!tp.throttle?.applied) throw new Error(`no throttle: ${JSON.stringify(tp.throttle)}`);
    await page.goto(`${env.url}/tests/pages/streamdown.html?mode=${mode}${defer ? '&defer=1' : ''}${process.env.TICKER ? '&ticker=1' : ''}`);
    await page.waitForFunction(() => window.appReady === true, null, { timeout: 60000 });
    const answer = page.evaluate((q) => window.runAnswer(q), QUERY);
    // The user types a follow-up while the answer streams (150 key presses, one every `type`
    // ms, from 1.5 s on), as users do.
    if (type) {
      await page.focus('#prompt');
      await new Promise((r) => setTimeout(r, 1500));
      await page.keyboard.type('and what about the variance of the mean of n samples? '.repeat(3).slice(0, 150), { delay: type });
    }
    const truth = await answer;
    const report = await tp.next(60000);
    if (process.env.DUMP) writeFileSync(`${process.env.DUMP}-${name}-${i}.json`, JSON.stringify({ report, truth }, null, 1));
    const verdicts = report.diagnosis.map((d) => d.verdict);
    const frame = Math.max(FRAME, report.frames?.intervalMs ?? FRAME) + 2;
    const threshold = report.stalls?.threshold ?? 100;
    // The page's freeze lies between [lo, hi] (each paint between its frame's time and the
    // next frame's); the report's runs to its after-paint mark, just after the paint.
    const freeze = report.stalls?.longest ?? 0;
    const { ms: pageFreeze, lo, hi } = truth.longestFreeze;
    const diff = freeze < lo ? lo - freeze : Math.max(0, freeze - hi);
    const lastPaint = truth.lastPaint === null ? null : truth.lastPaint - report.startTime;
    // The page stamps the frame that painted it with the frame's time, its rAF callbacks'
    // argument; the report's `frame` is that frame's start too (its `painted`, the after-paint
    // mark, can wait behind the page's next long task).
    const e2eDiff = report.e2ePerceived && lastPaint !== null ? Math.abs(report.e2ePerceived.frame - lastPaint) : null;
    const pageMedian = median(truth.waits.filter((w) => w !== null));
    const blocked = report.diagnosis.map((d) => d.evidence?.blockedShare ?? d.evidence?.blockedShareDuringFreeze).find((b) => typeof b === 'number') ?? null;
    const why = [];
    if (errors.length) why.push(`page errors: ${errors.join('; ')}`);
    if (report.status !== 'ok') why.push(`status ${report.status}`);
    if (!(report.matchedPct >= 99)) why.push(`matched ${report.matchedPct}`);
    if (truth.unshown) why.push(`${truth.unshown} deltas never shown by the page's own count`);
    if (e2eDiff === null || e2eDiff > frame) why.push(`E2E frame ${report.e2ePerceived?.frame} vs the page's ${round(lastPaint)}`);
    if (diff === null || (Math.max(freeze, pageFreeze) > threshold && diff > frame)) why.push(`longest freeze ${freeze} vs the page's ${round(pageFreeze)}`);
    const deferredSaid = verdicts.includes('client-updates-deferred');
    if (name === 'deferred' && !deferredSaid) why.push('no client-updates-deferred');
    if (name !== 'deferred' && deferredSaid) why.push('client-updates-deferred, with no deferral');
    if (verdicts.includes('healthy') && pageMedian > 100) why.push(`healthy, while the page's median wait was ${round(pageMedian)} ms`);
    const row = { case: name, i, ok: why.length === 0, why, verdicts, freeze, pageFreeze: round(pageFreeze), pageLo: round(lo), pageHi: round(hi), pageWait: round(truth.longestWait), diff: round(diff), e2eDiff: round(e2eDiff), frame: round(frame - 2), fps: report.frames?.fps ?? null, blocked, pageMedian: round(pageMedian), drawn: truth.drawn, deltas: truth.deltas };
    console.log(JSON.stringify(row));
    return row;
  } finally {
    await page.close();
  }
}
