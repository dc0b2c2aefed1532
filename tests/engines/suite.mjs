// The page, profiler, formats and last-mile tests, the same in every engine other than Chromium
// (issue 16): Firefox ESR over WebDriver BiDi (tests/engines/firefox.test.mjs) and WebKitGTK over
// WebDriver (tests/engines/webkit.test.mjs). The real renderers, chat web components, a worker app,
// every transport, the harness's page tests, every fixture of the format corpus and the lab page:
// all text found, lag within one frame of the app's own truth, and each report names exactly
// what its engine cannot give. Chromium-only features (long animation frames, the DevTools
// trace, CDP metrics) are tested in the Chromium files and not here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { median, lags, FRAME, holdsCrossOrigin, labReady, reportDiff } from '../support/helpers.mjs';
import { bundleRenderers } from '../support/bundle.mjs';
import { linesCosting, paceBehind } from '../support/pace.mjs';
import { formatCases, readFixture, holdsFixture } from '../support/fixtures.mjs';
import { createAnalyst } from '../../js/analyse.js';

const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
const SLACK = 10;
const MARKDOWN = 'content=markdown&ttft_ms=30&token_ms=15';
const STEADY = 'ttft_ms=50&token_ms=20&tokens=40';

// `truth` is the app's commit; `paint`, where given, the app's own paint truth (its rAF after
// the commit, then a task): on a loaded machine the paint can come frames after the commit, and
// the lag is then held to what the page itself saw painted, within a frame. `more`: how much
// later than tokenpaint's arrival the engine hands the bytes to the app (both truths start then).
function holds(r, truth, what, more = 0, paint = null) {
  assert.ok(r, `${what}: a report`);
  assert.ok(r.matchedPct >= 99, `${what}: matched ${r.matchedPct}\n${unmatched(r)}`);
  const upper = Math.max(truth + FRAME + SLACK + more, paint && paint.p50 !== null ? paint.p50 + FRAME + more : -Infinity);
  assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= upper, `${what}: lag p50 ${r.lag.p50} vs truth ${truth}, the page's paint ${paint && paint.p50}`);
}

// What a report that did not match its text says, for the failure message: the tokens never
// painted (index, arrival, chars) and the report without its arrays.
function unmatched(r) {
  const tl = r.timeline || {};
  const lost = (tl.painted || []).flatMap((p, i) => (p === null ? [[i, tl.arrived[i], tl.chars && tl.chars[i]]] : []));
  return `unpainted [index, arrived, chars]: ${JSON.stringify(lost)}; report: ${JSON.stringify({ ...r, timeline: undefined, saved: undefined }).slice(0, 2500)}`;
}

/**
 * Defines the suite for one engine.
 * - `name`: how the tests are titled;
 * - `setup()`: the engine's environment (tests/support/helpers.mjs), whose pages have `evaluate`,
 *   `waitForFunction`, `screenshot` and `errors`, and `hide(page, ms)`, which really hides a
 *   page (Firefox: another tab in front; WebKit: the window minimized);
 * - `lacks`: what every report in this engine lists as unavailable (paint evidence aside);
 * - `xhrProgressMs`: how long this engine may hold an XHR's `progress` event after the bytes
 *   came (see the sse.js test).
 */
export function engineTests({ name, setup, lacks, xhrProgressMs = 0 }) {
  let env;
  const pages = {};
  before(async () => {
    await bundleRenderers();
    env = await setup();
    for (const [page, ready] of [
      ['renderers', 'renderersReady'],
      ['frontends', 'frontendsReady'],
      ['transports', 'transportsReady'],
      ['harness', 'harnessReady'],
    ]) {
      pages[page] = await env.page(`/tests/pages/${page}.html`);
      await pages[page].waitForFunction((flag) => window[flag] === true, ready, { timeout: 20000 });
    }
  });
  after(() => env && env.close());

  for (const renderer of ['text', 'marked', 'markdown-it', 'react-markdown']) {
    test(`${name}, ${renderer}: a 60 ms render delay is measured within one frame`, async (t) => {
      const { report: r, truth, paintTruth } = await pages.renderers.evaluate((a) => window.runRenderer(a), { renderer, strategy: 'per-token', query: MARKDOWN, delay: 60, paintTruth: true });
      t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, the page's paint ${paintTruth.p50}, matched ${r.matchedPct}%, unavailable ${r.unavailable}`);
      // The app's own truth: the 60 ms delay plus its render time (react-markdown's is ~10 ms in
      // WebKit here).
      assert.ok(truth >= 60, `truth ${truth}`);
      holds(r, truth, renderer, 0, paintTruth);
      // Exactly what this engine lacks. `paint` is evidence, not a feature: it is listed when a
      // commit had no paint yet as the report was taken (seen once in eight Firefox runs).
      // `resource-timing` was listed once in WebKit, in a loaded fresh run's first test, and not
      // in 18 runs made to find it: the message then gives the entries the page has for the URL.
      const entries = r.unavailable.includes('resource-timing')
        ? await pages.renderers.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/v1/chat/completions')).map((e) => ({ start: e.startTime, end: e.responseEnd })))
        : null;
      assert.deepEqual(r.unavailable.filter((u) => u !== 'paint'), lacks, entries && `the report's start ${r.startTime}, body end ${r.startTime + r.bodyEnd}; the page's entries ${JSON.stringify(entries)}`);
    });
    test(`${name}, ${renderer} throttled: median lag within one frame of the app's truth`, async (t) => {
      const { report: r, truth, paintTruth } = await pages.renderers.evaluate((a) => window.runRenderer(a), { renderer, strategy: 'throttled', query: MARKDOWN, interval: 50, paintTruth: true });
      t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, the page's paint ${paintTruth.p50}, matched ${r.matchedPct}%`);
      holds(r, truth, `${renderer} throttled`, 0, paintTruth);
    });
  }

  // Issue 32: this engine does not name the scripts of long frames, and the render verdict says
  // so rather than name one. Paced to the machine, as in Chromium (tests/support/pace.mjs).
  test(`${name}: the render verdict of a page with a heavy highlighter says its script is unknown`, async (t) => {
    // As in Chromium (tests/browser/renderers.test.mjs): an answer long enough that its whole
    // render costs 16 ms here, so that its last deltas cost the page 8 ms or more. A warm page
    // rendered the 150-line answer in 9 ms, and kept up with its 4.5 ms pace (1 of 406 failed).
    const { lines } = await linesCosting(pages.renderers, 'markdown-highlighter', 150, 16, 300);
    const { tokenMs } = await paceBehind(pages.renderers, 'markdown-highlighter', lines, { share: 0.5 });
    const { report: r } = await pages.renderers.evaluate((a) => window.runRenderer(a), { renderer: 'markdown-highlighter', strategy: 'per-token', query: `content=code&lines=${lines}&merge=2&ttft_ms=30&token_ms=${tokenMs}` });
    const v = r.diagnosis.find((d) => /^client-render|^page-stall/.test(d.verdict));
    t.diagnostic(JSON.stringify({ lines, tokenMs, verdicts: r.diagnosis.map((d) => d.verdict), script: v?.script, unknown: v?.scriptUnknown }));
    assert.ok(v, r.diagnosis.map((d) => d.verdict).join());
    assert.equal(v.script, null);
    assert.equal(v.scriptUnknown, 'long-animation-frame-unsupported');
  });

  test(`${name}: tokenpaint/lazy at sampleRate 0 loads no wasm and makes no observer; at 1 an early stream is profiled in full`, async (t) => {
    const ours = (l) => l.scripts.filter((p) => p.startsWith('/js/') || p.startsWith('/pkg/')).sort();
    const off = await env.page('/tests/pages/sampling.html?entry=lazy&rate=0');
    try {
      await off.waitForFunction(() => window.samplingReady === true, null, { timeout: 20000 });
      const r = await off.evaluate(() => window.runAnswer({ via: 'fetch', waitReport: false }));
      assert.equal(r.identical, true, "the app's own response object");
      assert.equal(r.sameBytes, true, 'byte-identical');
      await off.evaluate(() => window.idle());
      const l = await off.evaluate(() => window.loaded());
      assert.equal(l.sampled, false);
      assert.equal(l.observers, 0, 'no MutationObserver');
      // The stub and what it imports (js/words.js: the tap's end codes, inlined when bundled).
      assert.deepEqual(ours(l), ['/js/lazy.js', '/js/sample.js', '/js/transports/tap.js', '/js/words.js']);
    } finally {
      await off.close();
    }
    const on = await env.page('/tests/pages/sampling.html?entry=lazy&rate=1&early=1');
    try {
      await on.waitForFunction(() => window.samplingReady === true, null, { timeout: 20000 });
      const r = await on.evaluate(() => window.earlyRun);
      t.diagnostic(`early: ${r.early}, status ${r.report && r.report.status}, deltas ${r.report && r.report.deltas}, matched ${r.report && r.report.matchedPct}%`);
      assert.equal(r.early, true, 'the stream began before the profiler was loaded');
      assert.equal(r.sameBytes, true, 'byte-identical');
      assert.ok(r.shown > 100, `the app showed the answer (${r.shown} characters)`);
      assert.equal(r.report.status, 'ok');
      assert.equal(r.report.deltas, 30);
      assert.ok(r.report.matchedPct >= 99, `matched ${r.report.matchedPct}`);
      assert.ok(ours(await on.evaluate(() => window.loaded())).includes('/pkg/tokenpaint_core_bg.wasm'));
    } finally {
      await on.close();
    }
  });

  test(`${name}: a chat web component with nested open shadow roots`, async (t) => {
    const { report: r, truth, paintTruth } = await pages.frontends.evaluate((a) => window.runComponent(a), { mode: 'open' });
    t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, the page's paint ${paintTruth.p50}, matched ${r.matchedPct}%`);
    holds(r, truth, 'component', 0, paintTruth);
  });

  test(`${name}: an app that transfers each chunk buffer to a worker`, async (t) => {
    const { report: r, truth, paintTruth } = await pages.frontends.evaluate(() => window.runWorker());
    t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, the page's paint ${paintTruth.p50}, matched ${r.matchedPct}%`);
    assert.equal(r.deltas, 60);
    holds(r, truth, 'worker', 0, paintTruth);
  });

  for (const [what, call] of [
    ['sse.js over XHR (instrument)', () => window.runSseJs({})],
    ['EventSource (track)', () => window.runEventSource({})],
    ['the push handle', () => window.runPush()],
  ]) {
    test(`${name}, ${what}: full report, lag within one frame`, async (t) => {
      const { report: r, truth, paintTruth } = await pages.transports.evaluate(call);
      t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truth.toFixed(1)} ms, the page's paint ${paintTruth && paintTruth.p50}`);
      assert.equal(r.status, 'ok');
      assert.equal(r.deltas, 40);
      // sse.js reads the body on XHR `progress` events, which the XHR standard lets an engine
      // fire at most every 50 ms, and WebKit does; tokenpaint reads the bytes at the first event
      // that shows them (`readystatechange` fires per chunk), so the text really reaches the page
      // that much before sse.js hands it to the app, and the app's own truth starts later.
      holds(r, truth, what, what.startsWith('sse.js') ? xhrProgressMs : 0, paintTruth);
    });
  }

  for (const [what, call] of [
    ['WebSocket, three interleaved answers (instrument)', () => window.runSocket({ asks: [{ id: 'a1', tokens: 30, token_ms: 20 }, { id: 'b2', tokens: 40, token_ms: 15, seed: 2 }, { id: 'c3', tokens: 50, token_ms: 25, seed: 3 }], profile: 'instrument' })],
    ['Socket.IO, Open WebUI 0.12 events (track)', () => window.runSocketIo({})],
  ]) {
    test(`${name}, ${what}: one report per answer, each matched in its own element`, async (t) => {
      const { reports, truths, paints } = await pages.transports.evaluate(call);
      assert.equal(reports.length, Object.keys(truths).length);
      for (const r of reports) {
        const k = Object.keys(truths).findIndex((_, i) => reports.length === 1 || r.deltas === [30, 40, 50][i]);
        const truth = Object.values(truths)[k];
        const paint = { p50: Object.values(paints)[k] };
        t.diagnostic(`${r.transport}: ${r.deltas} deltas, lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, the page's paint ${paint.p50}`);
        assert.equal(r.status, 'ok');
        holds(r, truth, `${what} (${r.deltas} deltas)`, 0, paint);
      }
    });
  }

  const run = (args) => pages.harness.evaluate((a) => window.runStream(a), args);

  // A loaded machine fires the 100 ms timers late and paints frames late: the upper bound is
  // the page's own paint truth (its frame after each commit) plus a frame, where that is later.
  test(`${name}: a fixed 100 ms render delay gives a median lag within [100, 100 + 2 frames] (or the page's own paint + a frame)`, async (t) => {
    const r = await run({ query: STEADY, render: 'delay', delay: 100, paintTruth: true });
    assert.equal(r.status, 'ok');
    assert.equal(r.matchedPct, 100);
    const m = median(lags(r));
    t.diagnostic(`median lag ${m.toFixed(2)} ms, the page's paint ${r.paintTruth}`);
    assert.ok(r.paintTruth !== null, "the page's paint truth");
    assert.ok(m >= 100 && m <= Math.max(100 + 2 * FRAME, r.paintTruth + FRAME), `median lag ${m}, the page's paint ${r.paintTruth}`);
  });

  test(`${name}: immediate rendering, and re-rendering the whole element, lag under one frame + 2 ms (or the page's own paint + a frame)`, async () => {
    for (const render of ['immediate', 'rerender']) {
      const r = await run({ query: STEADY, render, paintTruth: true });
      assert.equal(r.matchedPct, 100, render);
      assert.equal(r.lag.count, 40, render);
      const upper = Math.max(FRAME + 2, r.paintTruth + FRAME);
      assert.ok(median(lags(r)) < upper, `${render}: median lag ${median(lags(r))}, the page's paint ${r.paintTruth}`);
    }
  });

  test(`${name}: onProgress while the answer streams, and the overlay`, async (t) => {
    const r = await pages.harness.evaluate(async () => {
      const { Profiler } = await import('/js/index.js');
      const { overlay } = await import('/js/overlay.js');
      const chat = document.getElementById('chat');
      const p = new Profiler();
      p.observe(chat);
      const panel = overlay(p);
      const seen = [];
      const off = p.onProgress((x) => seen.push([x.t, x.backlog, x.ended]));
      const done = new Promise((res) => p.onReport(res));
      const out = document.createElement('div');
      chat.append(out);
      const res = await p.fetch('/v1/chat/completions?ttft_ms=50&token_ms=40&tokens=40', { method: 'POST', body: '{}' });
      const text = await res.text();
      const pieces = text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta?.content).filter(Boolean);
      out.textContent = pieces.join('');
      const report = await done;
      off();
      // The overlay shows the verdict on its next update: waited for (a loaded machine is slow
      // to get there), not given a fixed time.
      const shown = () => (panel.root ? panel.root.querySelector('.v').textContent : null);
      for (let i = 0; i < 100 && shown() !== report.diagnosis[0].verdict; i++) await new Promise((ok) => setTimeout(ok, 50));
      const verdict = shown();
      const styled = panel.root ? panel.root.adoptedStyleSheets.length : null;
      panel.close();
      p.disconnect();
      return { seen, report, verdict, styled };
    });
    const live = r.seen.filter((x) => !x[2]);
    t.diagnostic(`${r.seen.length} progress updates (${live.length} while streaming), peak backlog ${Math.max(...r.seen.map((x) => x[1]))}, overlay verdict ${r.verdict}, ${r.styled} stylesheet`);
    assert.ok(live.length >= 4, `${live.length} updates while streaming`);
    // The app showed everything at the end: the backlog grew to the whole answer.
    assert.ok(Math.max(...r.seen.map((x) => x[1])) > 100, 'the backlog grew while nothing was shown');
    assert.equal(r.report.matchedPct, 100, 'the overlay is not counted');
    assert.equal(r.verdict, r.report.diagnosis[0].verdict);
    assert.equal(r.styled, 1);
  });

  test(`${name}: a page that renders only at the end has its perceived TTFT in the frame the page asked for after its commit`, async () => {
    const r = await run({ query: STEADY, render: 'end' });
    assert.equal(r.matchedPct, 100);
    // The frame that shows the answer is the one the page itself asked for right after its
    // commit (its own rAF timestamp, or the commit when the frame began before it), within the
    // timer's resolution (1 ms in WebKit): held to the page's truth, not to a frame's time after
    // the last arrival, which a loaded machine's late frames miss (22 ms was seen in WebKit).
    const want = Math.max(r.truth.frame, r.truth.commit);
    assert.ok(r.truth.commit >= r.e2e, `the page rendered at ${r.truth.commit}, after the last arrival at ${r.e2e}`);
    assert.ok(Math.abs(r.ttftPerceived.frame - want) <= 1.5, `first paint's frame ${r.ttftPerceived.frame} vs the page's ${want}`);
  });

  test(`${name}: the app reads exactly the bytes the server sent (1 MB, hash compared)`, async () => {
    const h = await pages.harness.evaluate((q) => window.hashStream(q), 'body_bytes=1048576&seed=3');
    assert.equal(h.viaProfiler, h.server);
    assert.equal(h.direct, h.server);
    assert.equal(h.report.bytes, h.length);
    assert.equal(h.report.deltas, h.events);
  });

  test(`${name}: server timing knobs, an HTTP error and an aborted stream`, async (t) => {
    const r = await run({ query: 'ttft_ms=250&token_ms=30&tokens=20' });
    // The server waits 250 ms, then sends a token every 30 ms. The truth of the same run is the
    // page's own reads: the tap stamps a chunk before the page's read gets it, so TTFT lies
    // between the server's wait and the page's first read (a loaded fresh run read it at 366 ms,
    // past the fixed 350 this held it to), within 1 ms: the report gives whole ms, and WebKit's
    // clock steps by 1 ms. TPOT and the ITL median are the page's read pace.
    const own = r.readTruth;
    t.diagnostic(`ttft ${r.ttft} (the page's first read ${own.ttft.toFixed(1)}), tpot ${r.tpot} (${own.tpot.toFixed(2)}), ITL p50 ${r.itl.p50} (${own.itlP50.toFixed(2)})`);
    assert.ok(r.ttft >= 250 && r.ttft <= own.ttft + 1, `ttft ${r.ttft}, the page's first read ${own.ttft}`);
    assert.ok(Math.abs(r.tpot - own.tpot) <= 2, `tpot ${r.tpot}, the page's reads ${own.tpot}`);
    assert.equal(r.tokens, 20);
    const e = await run({ query: 'status=503&ttft_ms=0' });
    assert.equal(e.status, 'error');
    assert.deepEqual(e.error, { kind: 'http', code: '503', message: 'simulated failure' });
    const a = await run({ query: 'ttft_ms=0&token_ms=20&tokens=100', abortAfter: 300 });
    assert.equal(a.status, 'aborted');
    assert.ok(a.deltas > 3 && a.deltas < 100, `${a.deltas} deltas`);
    // Stopped by the app, which cancels its body rather than aborting the request.
    const c = await run({ query: 'ttft_ms=0&token_ms=20&tokens=100', cancelAfter: 10 });
    assert.equal(c.status, 'aborted');
    assert.match(c.error.message, /cancelled by the application/);
    assert.ok(c.deltas >= 10 && c.deltas < 100, `${c.deltas} deltas`);
  });

  // Issue 50: this engine's streams, saved and analysed again in Node, give its own reports,
  // with what it lacks (long animation frames, Event Timing, a fine timer) as it lacked them:
  // the same verdicts, fields and strings, and every figure within the report's rounding.
  test(`${name}: saved timelines analysed again in Node give the reports the page had`, async () => {
    const analyst = await createAnalyst();
    for (const render of ['immediate', 'delay']) {
      const r = await run({ query: STEADY, render, delay: 80, options: { saveTimeline: true } });
      assert.equal(r.saved?.tokenpaint, 'timeline', render);
      const { saved, ...live } = r;
      // What the harness adds for its own checks (the page's truth), not the profiler.
      for (const k of ['truth', 'readTruth', 'inputTruth', 'inputTruthCount', 'paintTruth', 'paintTruthMax']) delete live[k];
      const { report, error } = analyst.analyse(saved);
      assert.equal(error, null, render);
      // The same report, every figure exactly: the saved times read back bit for bit, also
      // WebKit's, whose whole-ms figures lie on a rounding boundary (x.5) often.
      assert.deepEqual(reportDiff(report, live), [], render);
      assert.deepEqual(report.diagnosis.map((d) => d.verdict), live.diagnosis.map((d) => d.verdict), render);
    }
    analyst.close();
  });

  test(`${name}: a cross-origin response without Timing-Allow-Origin lists server-timing as unavailable`, async () => {
  holdsCrossOrigin(await pages.harness.evaluate(() => window.crossOrigin()));
  });

  test(`${name}: devtools: true lists devtools-track as unavailable (only Chromium's DevTools show it)`, async () => {
    const r = await run({ query: 'ttft_ms=10&token_ms=5&tokens=10', options: { devtools: true } });
    assert.equal(r.status, 'ok');
    assert.deepEqual(r.unavailable.filter((u) => u !== 'paint'), [...lacks, 'devtools-track']);
    const plain = await run({ query: 'ttft_ms=10&token_ms=5&tokens=10' });
    assert.deepEqual(plain.unavailable.filter((u) => u !== 'paint'), lacks);
  });

  for (const c of formatCases()) {
    test(`${name}: ${c.format}/${c.file} is detected and read`, async () => {
      holdsFixture(await readFixture(pages.harness, c), c);
    });
  }

  test(`${name}: the lab page diagnoses a scenario (screenshot in tests/artifacts)`, async () => {
    const lab = await env.page('/');
    await lab.waitForFunction(labReady, null, { timeout: 20000 });
    const r = await lab.evaluate(async () => {
      const before = window.tokenpaintProfiler.reports().length;
      document.querySelector('button[data-name="decode"]').click();
      document.getElementById('send').click();
      const until = performance.now() + 30000;
      while (window.tokenpaintProfiler.reports().length === before && performance.now() < until) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500));
      const report = window.tokenpaintProfiler.reports().at(-1);
      const page = report && report.diagnosis.find((v) => v.verdict === 'client-render-bound');
      return { verdict: report && report.diagnosis[0].verdict, verdicts: report ? report.diagnosis.map((v) => v.verdict) : [], lag: report && report.lag, blocked: page ? page.evidence.blockedShare : null, shown: document.getElementById('report').dataset.verdict };
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(path.join(ARTIFACTS, `lab-${name.toLowerCase()}.png`), await lab.screenshot());
    // A server-side scenario: its verdict does not depend on the engine's speed (the markdown
    // scenario's render cost is CPU time, calibrated in Chromium: Firefox renders it with a lag
    // p50 of 43 ms, which is healthy). On a loaded machine the page itself may also paint late,
    // and then says so first (its lag is the evidence, by the rule of docs/diagnosis.md: a median
    // over 100 ms, a p95 over 500 ms with the main thread blocked a quarter of the stream, or a
    // median over two frames with it blocked half; a
    // CI run's WebKit froze 0.7 s near the end: p50 24, p95 516): the server's cause is still named.
    const pageLate = r.verdict === 'client-render-bound' && r.lag && (r.lag.p50 > 100 || (r.lag.p95 > 500 && r.blocked >= 0.25) || (r.lag.p50 > 33.4 && r.blocked >= 0.5));
    assert.ok(r.verdicts.includes('decode-bound'), `${r.verdicts}`);
    assert.equal(r.verdict, pageLate ? 'client-render-bound' : 'decode-bound', `${r.verdicts}, lag ${JSON.stringify(r.lag)}, blocked ${r.blocked}`);
    assert.equal(r.shown, r.verdict);
    assert.deepEqual(lab.errors, []);
  });

  test(`${name}: a page really hidden mid-answer: rAF stops, those samples are left out of lag`, async (t) => {
    const page = pages.renderers;
    await page.evaluate(() => {
      window.hiddenRun = { frames: 0, hiddenFrames: 0, states: [], shownAt: null, firstFrameShown: null };
      document.addEventListener('visibilitychange', () => {
        window.hiddenRun.states.push(document.visibilityState);
        if (document.visibilityState === 'visible') window.hiddenRun.shownAt = performance.now();
      });
      const tick = () => {
        window.hiddenRun.frames++;
        if (document.visibilityState === 'hidden') window.hiddenRun.hiddenFrames++;
        // The page's own first frame once shown again: how long the engine took to give one.
        else if (window.hiddenRun.shownAt !== null && window.hiddenRun.firstFrameShown === null) window.hiddenRun.firstFrameShown = performance.now();
        if (!window.hiddenRun.done) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      window.hiddenRun.report = window.runRenderer({ renderer: 'text', strategy: 'per-token', query: 'ttft_ms=20&token_ms=20&tokens=100', delay: 10 });
    });
    await new Promise((r) => setTimeout(r, 600));
    await env.hide(page, 600);
    const { report: r, seen } = await page.evaluate(async () => {
      const { report } = await window.hiddenRun.report;
      window.hiddenRun.done = true;
      return { report, seen: window.hiddenRun };
    });
    const shownWait = seen.firstFrameShown - seen.shownAt;
    t.diagnostic(`states ${seen.states}, hidden ${JSON.stringify(r.hidden)}, lag count ${r.lag.count} of ${r.deltas}, lag max ${r.lag.max}, the page's first frame ${shownWait.toFixed(1)} ms after it was shown`);
    assert.deepEqual(seen.states, ['hidden', 'visible'], 'the engine hid the page and showed it again');
    // A frame or two at the switch (Firefox ran two), where 600 ms at 60 Hz would be 36 frames.
    assert.ok(seen.hiddenFrames <= 3, `${seen.hiddenFrames} animation frames ran while hidden`);
    assert.equal(r.hidden.intervals, 1);
    assert.ok(r.hidden.ms >= 400 && r.hidden.ms <= 1200, `hidden ${r.hidden.ms} ms`);
    assert.ok(r.hidden.excludedSamples >= 10, `${r.hidden.excludedSamples} excluded`);
    assert.equal(r.lag.count + r.hidden.excludedSamples, r.deltas);
    // A sample counted across the hidden interval arrived before the page was hidden and was
    // painted in the page's first frame once shown, or later: its lag is at least the hidden time
    // (tokenpaint's, `hidden.ms`) plus the page's own wait for that frame (recorded above; WebKit
    // takes ~150 ms after a restore, Firefox took 1.6 s in a fresh run with both cores spun).
    // Samples that came just after the page was shown wait for that frame too: lag a user sees,
    // and counted. So every counted lag is below the two together. Not a fixed 400 ms: a loaded
    // fresh run's Firefox lagged 490 ms on a token outside the 764 ms it was hidden.
    assert.ok(Number.isFinite(shownWait), 'the page recorded its first frame once shown');
    const bound = r.hidden.ms + Math.max(0, shownWait);
    assert.ok(r.lag.max < bound, `lag max ${r.lag.max}, bound ${bound.toFixed(1)} (hidden ${r.hidden.ms} + the first frame's wait ${shownWait.toFixed(1)}): the hidden interval is not counted as lag`);
  });

  test(`${name}: no page saw an error`, () => {
    for (const [page, p] of Object.entries(pages)) assert.deepEqual(p.errors, [], page);
  });
}
