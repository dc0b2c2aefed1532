// Issue 50: a real page's streams, saved (`saveTimeline: true`) and analysed again in Node by
// tokenpaint/analyse, give the reports the page had: every render strategy of the harness, a
// page busy with long tasks (long animation frames, late reads), a stream tracked after the fact,
// an aborted and a cancelled one. Headless Chromium, the demo server over 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from '../support/helpers.mjs';
import { createAnalyst } from '../../js/analyse.js';

let env;
let harness;

before(async () => {
  env = await setup();
  harness = await env.harness();
});

after(async () => {
  await env.close();
});

const run = (args) => harness.evaluate((a) => window.runStream(a), { ...args, options: { saveTimeline: true, ...args.options } });
// What the harness adds to a report for its own checks (the page's truth), not the profiler.
const HARNESS = ['truth', 'inputTruth', 'paintTruth', 'paintTruthMax'];

const STEADY = 'ttft_ms=50&token_ms=15&tokens=40';
const CASES = [
  ['appending', { query: STEADY }],
  ['rendering 120 ms late', { query: STEADY, render: 'delay', delay: 120 }],
  ['re-rendering the whole message at a cost', { query: STEADY, render: 'rerender', cost: 30 }],
  ['showing the answer at its end', { query: STEADY, render: 'end' }],
  ['a buffering hop, vLLM timings', { query: 'ttft_ms=50&token_ms=10&tokens=60&flush_ms=150&metrics=vllm' }],
  ['tracked after the fact', { query: STEADY, via: 'track' }],
  ['aborted', { query: 'ttft_ms=50&token_ms=30&tokens=60', abortAfter: 400 }],
  ['cancelled by the app', { query: STEADY, cancelAfter: 10 }],
];

test("a real page's saved timelines, analysed again in Node, give the reports the page had", async (t) => {
  const analyst = await createAnalyst();
  for (const [what, args] of CASES) {
    const r = await run(args);
    assert.equal(r.saved?.tokenpaint, 'timeline', what);
    const { saved, ...live } = r;
    for (const k of HARNESS) delete live[k];
    const { report, error } = analyst.analyse(r);
    assert.equal(error, null, what);
    t.diagnostic(`${what}: ${live.diagnosis.map((d) => d.verdict).join(', ')}, ${JSON.stringify(saved).length} bytes saved`);
    assert.deepEqual(report, live, what);
  }
  analyst.close();
});
