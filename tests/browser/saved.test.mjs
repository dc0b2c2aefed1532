// Issue 50: a real page's streams, saved (`saveTimeline: true`) and analysed again in Node by
// tokenpaint/analyse, give the reports the page had: every render strategy of the harness, a
// page busy with long tasks (long animation frames, late reads), a stream tracked after the fact,
// an aborted and a cancelled one. Headless Chromium, the demo server over 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, reportDiff } from '../support/helpers.mjs';
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
const HARNESS = ['truth', 'readTruth', 'inputTruth', 'inputTruthCount', 'paintTruth', 'paintTruthMax'];

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
    // The same report: every verdict, field, string and figure (a saved timeline's numbers read
    // back bit for bit, so no figure can round the other way).
    assert.deepEqual(report.diagnosis.map((d) => d.verdict), live.diagnosis.map((d) => d.verdict), what);
    assert.deepEqual(reportDiff(report, live), [], what);
  }
  analyst.close();
});

// The Resource Timing entry crosses into the core as eight positional times (src/wasm.rs
// `resource`): the saved timeline holds them as the core took them, in its documented order, and
// each is the page's own entry's field of that name. A swap on either side fails here.
test("the Resource Timing entry the core took is the page's own, field for field", async () => {
  const r = await run({ query: 'ttft_ms=40&token_ms=10&tokens=10&resource_probe=1' });
  const entry = await harness.evaluate(() => {
    const e = performance.getEntriesByType('resource').filter((x) => x.name.includes('resource_probe=1')).pop();
    return e && [e.startTime, e.domainLookupStart, e.domainLookupEnd, e.connectStart, e.connectEnd, e.requestStart, e.responseStart, e.responseEnd];
  });
  assert.ok(entry, 'the page has the entry');
  const known = (v) => (v > 0 ? v : null); // the core keeps a field the browser withheld (0) as unknown
  const want = [entry[0], ...entry.slice(1).map(known)];
  const got = r.saved.stream.resource;
  assert.equal(got.length, want.length);
  // Saved at 1e-9 ms resolution (docs/timeline.md).
  got.forEach((v, i) => assert.ok(v === want[i] || Math.abs(v - want[i]) < 1e-6, `field ${i}: ${v} vs ${want[i]}`));
  // The fields are distinct times here (a new connection): a swap of two would show.
  assert.ok(new Set(want.filter((v) => v !== null)).size >= 4, JSON.stringify(want));
});
