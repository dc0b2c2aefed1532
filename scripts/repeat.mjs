// Repeats the load scenarios of issue 30 N times outside `npm test` (which runs each once) and
// prints how many runs held. Usage: node scripts/repeat.mjs [N] [scenario ...]
//   heavy        a whole-answer re-render with markdown-it + highlight.js (renderers page)
//   stall-llama  one 600 ms decode step, llama.cpp timings in the stream
//   stall-none   the same without server timings
//   xhr          sse.js over XHR (POST), each delta appended as a text node in the message
//                handler, and 20 ms later (alternating)
//   math         issue 49: an answer that ends in a KaTeX formula (tests/pages/math.html):
//                perceived E2E within a frame of the page's own last paint, the longest stall
//                within a frame of the page's own longest wait (none, when that is under the
//                stall threshold)
//   deferred     issue 49: a page that defers its updates while it is free (a debounce):
//                client-updates-deferred, its freeze within a frame of the page's own
//   arrival      the opt-in arrival clock: an idle run (the worker's hop, TTFT with and without)
//                and a 400 ms busy loop (ITL max and the measured late read against the page's
//                own record), each with and without the clock
import assert from 'node:assert/strict';
import { setup, FRAME } from '../tests/support/helpers.mjs';
import { bundleRenderers } from '../tests/support/bundle.mjs';
import { paceBehind } from '../tests/support/pace.mjs';

const n = Number(process.argv[2]) || 20;
const wanted = process.argv.slice(3);
const num = (raw, re) => Number(re.exec(raw)?.[1]);

const scenarios = {
  async math(env) {
    const page = await env.page('/tests/pages/math.html');
    await page.waitForFunction(() => window.mathReady === true);
    return async () => {
      const { report: r, lastPaint, longestWait, drawn } = await page.evaluate(() => window.runMath());
      const stall = r.stalls.longest ?? 0;
      const line = `e2ePerceived ${r.e2ePerceived?.painted} vs the page's ${lastPaint.toFixed(1)}; longest stall ${stall} vs the page's longest wait ${longestWait.toFixed(1)}; ${drawn} formulas, matched ${r.matchedPct}%`;
      assert.equal(drawn, 5, line);
      assert.ok(r.e2ePerceived && Math.abs(r.e2ePerceived.painted - lastPaint) <= FRAME, line);
      if (Math.max(stall, longestWait) > r.stalls.threshold) assert.ok(Math.abs(stall - longestWait) <= FRAME, line);
      return line;
    };
  },
  async deferred(env) {
    const page = await env.harness();
    return async () => {
      const r = await page.evaluate(() => window.runStream({ query: 'ttft_ms=50&token_ms=20&tokens=60&stall_at=30&stall_ms=200', render: 'deferred', delay: 60, paintTruth: true }));
      const v = r.diagnosis.find((d) => d.verdict === 'client-updates-deferred');
      const line = `${r.diagnosis.map((d) => d.verdict)} freeze ${r.stalls.longest} vs the page's ${r.paintTruthMax.toFixed(1)}; frames ${v?.evidence.framesDuringFreeze}, blocked ${v?.evidence.blockedShareDuringFreeze}, step ${v?.evidence.stepChars}`;
      assert.ok(v, line);
      assert.ok(Math.abs(r.stalls.longest - r.paintTruthMax) <= FRAME, line);
      return line;
    };
  },
  async heavy(env) {
    const page = await env.page('/tests/pages/renderers.html');
    await page.waitForFunction(() => window.renderersReady === true, null, { timeout: 15000 });
    return async () => {
      // Paced to this machine as the test is (tests/support/pace.mjs).
      const { tokenMs } = await paceBehind(page, 'markdown-hljs', 205);
      const query = `content=code&lines=205&ttft_ms=30&token_ms=${tokenMs}`;
      const { report: r, paintTruth } = await page.evaluate((q) => window.runRenderer({ renderer: 'markdown-hljs', strategy: 'per-token', query: q, paintTruth: true }), query);
      const verdicts = r.diagnosis.map((v) => v.verdict);
      const line = `${verdicts.join(',')} heldBy=${r.intermediary?.heldBy} lag p50 ${r.lag.p50}/${paintTruth.p50.toFixed(1)} p95 ${r.lag.p95}/${paintTruth.p95.toFixed(1)} lateReadGroups=${r.arrivals.lateReadGroups}`;
      assert.equal(verdicts[0], 'client-render-bound', line);
      assert.ok(!verdicts.some((v) => /buffered/.test(v)), line);
      assert.ok(r.matchedPct >= 99, line);
      for (const q of ['p50', 'p95']) assert.ok(Math.abs(r.lag[q] - paintTruth[q]) <= FRAME, line);
      return line;
    };
  },
  ...Object.fromEntries(
    [
      ['stall-llama', '&metrics=llamacpp'],
      ['stall-none', '&usage=0'],
    ].map(([name, extra]) => [
      name,
      async (env) => {
        const page = await env.harness();
        return async () => {
          const { report: r, raw } = await page.evaluate((q) => window.runPhases(q), `ttft_ms=150&token_ms=20&tokens=60&stall_at=30&stall_ms=600${extra}`);
          const verdicts = r.diagnosis.map((v) => v.verdict);
          const inter = r.phases.find((p) => p.name === 'intermediary').ms;
          const v = r.diagnosis.find((d) => d.verdict === 'decode-stall');
          const line = `${verdicts.join(',')} intermediary=${inter} unattributed=${r.phasesTotal.unattributed} stall ${v?.evidence.stallMs}/${num(raw, /stall_ms=([\d.]+)/)} place=${v?.place}`;
          assert.equal(inter, 0, line);
          assert.ok(r.phasesTotal.unattributed >= 0, line);
          assert.ok(v && v.place === 'server', line);
          assert.ok(!verdicts.some((x) => /buffered|healthy/.test(x)), line);
          return line;
        };
      },
    ]),
  ),
  async arrival(env) {
    const page = await env.page('/tests/pages/arrival.html');
    await page.waitForFunction(() => window.arrivalReady === true, null, { timeout: 15000 });
    assert.equal(await page.evaluate(() => window.registerArrivalClock()), true);
    const run = (clock, busy) => page.evaluate((a) => window.runArrival(a), { query: 'ttft_ms=100&token_ms=20&tokens=60', clock, ...(busy ? { busyAt: 400, busyMs: 400 } : {}) });
    return async () => {
      const idle = await run(false, false);
      const idleSw = await run(true, false);
      const busy = await run(false, true);
      const busySw = await run(true, true);
      const [b0, b1] = busySw.busy;
      const a = busySw.report.timeline.arrived;
      const expected = a.reduce((s, x) => s + (x >= b0 && x < b1 ? b1 - x : 0), 0) / a.length;
      const line = `idle: ttft ${idle.report.ttft}/${idleSw.report.ttft} (page/sw), sw hop ${idleSw.report.arrivals.lateReadMs}; busy: itl max ${busy.report.itl.max}/${busySw.report.itl.max}, late read ${busySw.report.arrivals.lateReadMs} vs ${expected.toFixed(2)}`;
      assert.equal(idleSw.raw, idle.raw, line);
      assert.equal(busySw.report.arrivals.clock, 'service-worker', line);
      assert.ok(busySw.report.itl.max <= busy.report.itl.max / 2 && busy.report.itl.max >= 300, line);
      assert.ok(Math.abs(busySw.report.arrivals.lateReadMs - expected) <= 5, line);
      return line;
    };
  },
  async xhr(env) {
    const page = await env.page('/tests/pages/transports.html');
    await page.waitForFunction(() => window.transportsReady === true, null, { timeout: 15000 });
    let i = 0;
    return async () => {
      const delay = i++ % 2 ? 20 : null;
      const { report: r } = await page.evaluate((d) => window.runSseJs({ query: 'ttft_ms=50&token_ms=20&tokens=48', delay: d }), delay);
      const line = `delay ${delay}: matched ${r?.matchedPct}% deltas ${r?.deltas} status ${r?.status}`;
      assert.equal(r.matchedPct, 100, line);
      return line;
    };
  },
};

const names = wanted.length ? wanted : Object.keys(scenarios);
if (names.includes('heavy')) await bundleRenderers();
const env = await setup();
const results = {};
try {
  for (const name of names) {
    const once = await scenarios[name](env);
    let held = 0;
    for (let k = 0; k < n; k++) {
      try {
        const line = await once();
        held++;
        console.log(`${name} ${k + 1}: ok ${line}`);
      } catch (e) {
        console.log(`${name} ${k + 1}: FAILED ${e.message}`);
      }
    }
    results[name] = `${held} of ${n}`;
  }
} finally {
  await env.close();
}
console.log(JSON.stringify(results));
