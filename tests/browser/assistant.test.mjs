// assistant-ui (@assistant-ui/react) with its AI SDK runtime, in React under <StrictMode>, in
// real Chromium: the AI SDK reads the UI message stream through tokenpaint's fetch (passed as
// the transport's `fetch`), assistant-ui renders it. tokenpaint observes the thread's viewport
// and must find all the text, with perceived figures and a median lag within one frame of the
// app's own commit truth.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, FRAME } from '../support/helpers.mjs';
import { buildApp } from '../apps/build.mjs';

let env;
before(async () => {
  await buildApp('assistant');
  env = await setup();
});
after(() => env.close());

const SLACK = 10;

test('assistant-ui + AI SDK runtime, StrictMode: matched, perceived figures, lag within one frame of the truth', async (t) => {
  const page = await env.page('/tests/pages/assistant-app/index.html');
  await page.waitForFunction(() => window.appReady === true && typeof window.send === 'function', null, { timeout: 15000 });
  await page.evaluate(() => window.send('ttft_ms=50&token_ms=20&tokens=60'));
  await page.waitForFunction(() => window.reports.length > 0, null, { timeout: 20000 });
  const { r, truth } = await page.evaluate(() => ({ r: window.reports[0], truth: window.truth() }));
  t.diagnostic(`lag p50 ${r.lag?.p50} ms, truth ${truth?.toFixed(1)} ms, matched ${r.matchedPct}%, ${r.deltas} deltas, format ${r.format}, verdicts ${r.diagnosis.map((v) => v.verdict)}`);
  assert.equal(r.format, 'ai-sdk-ui');
  assert.equal(r.status, 'ok');
  assert.equal(r.deltas, 60);
  assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
  assert.ok(r.ttftPerceived && r.e2ePerceived, 'perceived TTFT and E2E');
  assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `lag p50 ${r.lag.p50} vs truth ${truth}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
