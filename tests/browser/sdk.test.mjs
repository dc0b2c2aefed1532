// The OpenAI JS SDK (the real package) streaming through `profiler.fetch`, against the demo
// server: the report's token count matches the server's usage. In Node (no DOM: nothing is
// painted, and the report says so), with the wasm loaded from bytes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import OpenAI from 'openai';
import init, { Profiler } from '../../js/index.js';
import { startServer } from '../../scripts/demo-server.mjs';
import { setup } from '../support/helpers.mjs';
import { bundleRenderers } from '../support/bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let server;
let url;
before(async () => {
  await init(readFileSync(path.join(root, 'pkg', 'tokenpaint_core_bg.wasm')));
  ({ server, url } = await startServer({ port: 0 }));
});
after(() => server.close());

test('OpenAI SDK: new OpenAI({ fetch: profiler.fetch }) with stream: true', async () => {
  const profiler = new Profiler();
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, fetch: profiler.fetch });
  const stream = await client.chat.completions.create({
    model: 'tokenpaint-sim',
    messages: [{ role: 'user', content: 'hello' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  let usage = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  const r = await report;
  assert.ok(text.length > 100);
  assert.equal(r.status, 'ok');
  assert.equal(r.format, 'openai-chat');
  assert.equal(r.tokensSource, 'usage');
  assert.equal(r.tokens, usage.completion_tokens);
  assert.equal(r.chars, [...text].length);
  assert.ok(r.unavailable.includes('dom'), 'no DOM here: perceived figures are unknown, and said so');
  assert.equal(r.ttftPerceived, null);
});

test('the Vercel AI SDK in the browser: a provider with fetch: profiler.fetch, streaming text', async () => {
  await bundleRenderers('sdk');
  const env = await setup();
  try {
    const page = await env.page('/tests/pages/sdk.html');
    await page.waitForFunction(() => window.sdkReady === true, null, { timeout: 15000 });
    const { report: r, usage } = await page.evaluate(() => window.runAiSdk());
    assert.equal(r.status, 'ok');
    assert.equal(r.tokens, usage.outputTokens, JSON.stringify(usage));
    assert.equal(r.matchedPct, 100);
    assert.ok(r.lag.count > 10);
    // A React component observing its own message list, as the README shows.
    const rr = await page.evaluate(() => window.runReact());
    assert.equal(rr.status, 'ok');
    assert.equal(rr.matchedPct, 100);
    assert.equal(rr.lag.count, 40);
    assert.deepEqual(page.errors, []);
  } finally {
    await env.close();
  }
});
