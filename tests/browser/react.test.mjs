// A Vite React app under <StrictMode>, with the README's pattern (observe in an effect,
// disconnect in its cleanup: StrictMode runs observe → disconnect → observe), rendering plain
// text or Streamdown (markdown built for streaming, a real npm package) in real Chromium. The
// app records its own truth (a layout effect right after each React commit); tokenpaint must
// find all the text, measure a median lag within one frame of that truth, and give perceived
// TTFT and E2E.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, FRAME } from '../support/helpers.mjs';
import { buildApp } from '../apps/build.mjs';

let env;
before(async () => {
  await buildApp('react');
  env = await setup();
});
after(() => env.close());

const SLACK = 10;

for (const [renderer, query] of [
  ['text', 'ttft_ms=50&token_ms=20&tokens=60'],
  ['streamdown', 'content=markdown&ttft_ms=50&token_ms=15'],
]) {
  test(`React StrictMode, ${renderer}: matched, perceived figures, lag within one frame of the app's truth`, async (t) => {
    const page = await env.page(`/tests/pages/react-app/index.html?renderer=${renderer}`);
    await page.waitForFunction(() => window.appReady === true && typeof window.send === 'function', null, { timeout: 15000 });
    await page.evaluate((q) => window.send(q), query);
    await page.waitForFunction(() => window.reports.length > 0, null, { timeout: 20000 });
    const { r, truth } = await page.evaluate(() => ({ r: window.reports[0], truth: window.truth() }));
    t.diagnostic(`lag p50 ${r.lag?.p50} ms, truth ${truth?.toFixed(1)} ms, matched ${r.matchedPct}%, verdicts ${r.diagnosis.map((v) => v.verdict)}`);
    assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
    assert.ok(r.ttftPerceived && r.e2ePerceived, 'perceived TTFT and E2E');
    assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `lag p50 ${r.lag.p50} vs truth ${truth}`);
    assert.ok(!r.diagnosis.some((v) => v.verdict === 'insufficient-evidence'), JSON.stringify(r.diagnosis));
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
