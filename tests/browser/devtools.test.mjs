// DevTools export: a Chrome trace recorded over CDP during a profiled stream holds the
// tokenpaint measures, on the custom track; print() gives a console summary.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from '../support/helpers.mjs';

let env;
let page;
before(async () => {
  env = await setup();
  page = await env.harness();
});
after(() => env.close());

test('a Chrome trace of a profiled stream holds the tokenpaint measures on their track', async () => {
  await env.browser.startTracing(page, { categories: ['blink.user_timing', 'devtools.timeline'] });
  const printed = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({ devtools: true });
    const done = new Promise((r) => p.onReport(r));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=80&token_ms=10&tokens=20&metrics=vllm&queue_ms=30', { method: 'POST', body: '{}' });
    await res.text();
    const r = await done;
    return { text: p.print(), unavailable: r.unavailable, phases: r.phases };
  });
  // Chromium's DevTools show the track: nothing to report missing (Firefox and WebKit list
  // devtools-track: tests/engines/suite.mjs).
  assert.ok(!printed.unavailable.includes('devtools-track'), `${printed.unavailable}`);
  const trace = JSON.parse((await env.browser.stopTracing()).toString());
  const events = (trace.traceEvents || trace).filter((e) => typeof e.name === 'string' && e.name.startsWith('tokenpaint: '));
  const names = new Set(events.map((e) => e.name));
  for (const n of ['tokenpaint: queue', 'tokenpaint: prefill', 'tokenpaint: decode', 'tokenpaint: first token arrived']) {
    assert.ok(names.has(n), `${n} in ${[...names]}; phases ${JSON.stringify(printed.phases)}`);
  }
  // The trace keeps `detail` as a JSON string.
  const detail = (e) => {
    try {
      return JSON.parse(e.args?.detail || 'null');
    } catch {
      return null;
    }
  };
  const onTrack = events.filter((e) => detail(e)?.devtools?.track === 'tokenpaint');
  assert.ok(onTrack.length >= 4, 'the measures carry detail.devtools with the tokenpaint track');
  assert.equal(detail(onTrack.find((e) => e.name === 'tokenpaint: queue')).devtools.properties[0][1], 'server');
  assert.match(printed.text, /^tokenpaint #\d+ openai-chat ok: TTFT \d+ ms/);
  assert.match(printed.text, /summary of 1 streams/);
});
