// The page, profiler and last-mile tests in a second engine (issue 16, Firefox part): Debian's
// Firefox ESR over WebDriver BiDi (puppeteer-core). The real renderers, chat web components, a
// worker app and every transport: all text found, lag within one frame of the app's own truth.
// Each report names what this engine cannot give: no long animation frames (Chromium only).
// Chromium-only features (long animation frames, the DevTools trace, CDP metrics) are tested in
// the Chromium files and not here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setupFirefox, FRAME } from './helpers.mjs';
import { bundleRenderers } from './bundle.mjs';

let env;
const pages = {};
before(async () => {
  await bundleRenderers();
  env = await setupFirefox();
  for (const [name, ready] of [
    ['renderers', 'renderersReady'],
    ['frontends', 'frontendsReady'],
    ['transports', 'transportsReady'],
  ]) {
    pages[name] = await env.page(`/tests/pages/${name}.html`);
    await pages[name].waitForFunction((flag) => window[flag] === true, ready, { timeout: 20000 });
  }
});
after(() => env && env.close());

const SLACK = 10;
const MARKDOWN = 'content=markdown&ttft_ms=30&token_ms=15';

function holds(r, truth, what) {
  assert.ok(r, `${what}: a report`);
  assert.ok(r.matchedPct >= 99, `${what}: matched ${r.matchedPct}`);
  assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `${what}: lag p50 ${r.lag.p50} vs truth ${truth}`);
}

for (const renderer of ['text', 'marked', 'markdown-it', 'react-markdown']) {
  test(`Firefox, ${renderer}: a 60 ms render delay is measured within one frame`, async (t) => {
    const { report: r } = await pages.renderers.evaluate((a) => window.runRenderer(a), { renderer, strategy: 'per-token', query: MARKDOWN, delay: 60 });
    t.diagnostic(`lag p50 ${r.lag.p50} ms, matched ${r.matchedPct}%`);
    holds(r, 60, renderer);
    // Exactly what Firefox lacks: long animation frames (Resource Timing is there). `paint` is
    // evidence, not a feature: it is listed when a commit had no paint yet as the report was
    // taken, which happened once in eight runs here in Firefox (not in Chromium).
    assert.deepEqual(r.unavailable.filter((u) => u !== 'paint'), ['long-animation-frame']);
  });
  test(`Firefox, ${renderer} throttled: median lag within one frame of the app's truth`, async (t) => {
    const { report: r, truth } = await pages.renderers.evaluate((a) => window.runRenderer(a), { renderer, strategy: 'throttled', query: MARKDOWN, interval: 50 });
    t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, matched ${r.matchedPct}%`);
    holds(r, truth, `${renderer} throttled`);
  });
}

test('Firefox: a chat web component with nested open shadow roots', async (t) => {
  const { report: r, truth } = await pages.frontends.evaluate((a) => window.runComponent(a), { mode: 'open' });
  t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, matched ${r.matchedPct}%`);
  holds(r, truth, 'component');
});

test('Firefox: an app that transfers each chunk buffer to a worker', async (t) => {
  const { report: r, truth } = await pages.frontends.evaluate(() => window.runWorker());
  t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, matched ${r.matchedPct}%`);
  assert.equal(r.deltas, 60);
  holds(r, truth, 'worker');
});

for (const [name, call] of [
  ['sse.js over XHR (instrument)', () => window.runSseJs({})],
  ['EventSource (track)', () => window.runEventSource({})],
  ['the push handle', () => window.runPush()],
]) {
  test(`Firefox, ${name}: full report, lag within one frame`, async (t) => {
    const { report: r, truth } = await pages.transports.evaluate(call);
    t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truth.toFixed(1)} ms`);
    assert.equal(r.status, 'ok');
    assert.equal(r.deltas, 40);
    holds(r, truth, name);
  });
}

for (const [name, call] of [
  ['WebSocket, three interleaved answers (instrument)', () => window.runSocket({ asks: [{ id: 'a1', tokens: 30, token_ms: 20 }, { id: 'b2', tokens: 40, token_ms: 15, seed: 2 }, { id: 'c3', tokens: 50, token_ms: 25, seed: 3 }], profile: 'instrument' })],
  ['Socket.IO, Open WebUI events (track)', () => window.runSocketIo({})],
]) {
  test(`Firefox, ${name}: one report per answer, each matched in its own element`, async (t) => {
    const { reports, truths } = await pages.transports.evaluate(call);
    assert.equal(reports.length, Object.keys(truths).length);
    for (const r of reports) {
      const truth = Object.values(truths).find((_, i) => reports.length === 1 || r.deltas === [30, 40, 50][i]);
      t.diagnostic(`${r.transport}: ${r.deltas} deltas, lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms`);
      assert.equal(r.status, 'ok');
      holds(r, truth, `${name} (${r.deltas} deltas)`);
    }
  });
}

test('Firefox: no page saw an error', () => {
  for (const [name, p] of Object.entries(pages)) assert.deepEqual(p.errors, [], name);
});
