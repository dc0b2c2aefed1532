// The last mile with real renderers in real Chromium: marked, markdown-it and react-markdown
// (React 19) rendering a markdown answer, HTML-escaped text, and plain text nodes; delivered per
// token, throttled (50 ms, as the AI SDK's throttle), by a typewriter slower than arrival, or
// all at the end. The app records its own truth (when each piece arrived in it and when the DOM
// update that showed it was committed); tokenpaint must find all the text on screen and measure
// a median lag between that commit truth and one frame (+ the after-paint hop) later.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, FRAME } from './helpers.mjs';
import { bundleRenderers } from './bundle.mjs';

let env;
let page;
before(async () => {
  await bundleRenderers();
  env = await setup();
  page = await env.page('/tests/pages/renderers.html');
  await page.waitForFunction(() => window.renderersReady === true, null, { timeout: 15000 });
});
after(() => env.close());

const run = (args) => page.evaluate((a) => window.runRenderer(a), args);
const MARKDOWN = 'content=markdown&ttft_ms=30&token_ms=15';
// Our arrival stamp comes a little before the app's own (its parser runs after the tap), and the
// after-paint mark a little after the paint.
const SLACK = 4;

for (const renderer of ['text', 'escaped', 'marked', 'markdown-it', 'react-markdown']) {
  test(`${renderer}: a 60 ms render delay is measured within one frame`, async (t) => {
    const { report: r } = await run({ renderer, strategy: 'per-token', query: MARKDOWN, delay: 60 });
    t.diagnostic(`lag p50 ${r.lag.p50} ms, matched ${r.matchedPct}%`);
    assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
    assert.ok(r.lag.p50 >= 60 && r.lag.p50 <= 60 + FRAME + SLACK, `lag p50 ${r.lag.p50}`);
  });
  for (const strategy of ['throttled', 'smoothed', 'buffered']) {
    test(`${renderer} ${strategy}: all text found, median lag within one frame of the app's truth`, async (t) => {
      const { report: r, truth } = await run({ renderer, strategy, query: MARKDOWN, interval: 50, cps: 300 });
      t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truth.toFixed(1)} ms, matched ${r.matchedPct}%`);
      assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
      assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `lag p50 ${r.lag.p50} vs truth ${truth}`);
      assert.deepEqual(r.unavailable, []);
    });
  }
}

test('no page errors', () => assert.deepEqual(page.errors, []));
