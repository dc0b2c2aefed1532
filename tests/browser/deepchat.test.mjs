// deep-chat, a real chat web component (npm `deep-chat`), renders every message inside its open
// shadow root. The profiler observes only the <deep-chat> element; it must find the answer in
// the shadow tree, match all of it, and measure a median lag within one frame of the app's own
// truth (the time deep-chat's DOM first showed each delta).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, FRAME } from '../support/helpers.mjs';
import { buildApp } from '../apps/build.mjs';

let env;
before(async () => {
  await buildApp('deepchat');
  env = await setup();
});
after(() => env.close());

const SLACK = 10;

test('deep-chat (open shadow root): matched, perceived figures, lag within one frame of the truth', async (t) => {
  const page = await env.page('/tests/pages/deepchat-app/index.html');
  await page.waitForFunction(() => window.appReady === true, null, { timeout: 15000 });
  await page.evaluate(() => window.send('ttft_ms=50&token_ms=30&tokens=50'));
  await page.waitForFunction(() => window.reports.length > 0, null, { timeout: 20000 });
  const truth = await page.evaluate(() => window.truth());
  const r = await page.evaluate(() => window.reports[0]);
  t.diagnostic(`lag p50 ${r.lag?.p50} ms, truth ${truth?.toFixed(1)} ms, matched ${r.matchedPct}%, verdicts ${r.diagnosis.map((v) => v.verdict)}`);
  assert.equal(r.status, 'ok');
  assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
  assert.ok(r.ttftPerceived && r.e2ePerceived, 'perceived TTFT and E2E');
  assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `lag p50 ${r.lag.p50} vs truth ${truth}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
