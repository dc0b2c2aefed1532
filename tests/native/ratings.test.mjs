// The pure parts of the shell, in Node: ratings and SLO specs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricsOf, sloSpec } from '../../js/ratings.js';
import { resumeAt } from '../../js/browser/dom.js';

test("a report gives its headline metrics with the core's ratings and attribution", () => {
  const report = { id: 7, ttft: 400, ttftPerceived: { frame: 405, painted: 3500 }, e2ePerceived: null, tpot: 20, lag: { p50: 120 }, diagnosis: [{ verdict: 'client-render-bound' }], phases: [], format: 'openai-chat', ratings: { ttft: 'good', ttftPerceived: 'poor', lag: 'needs-improvement' } };
  const m = Object.fromEntries(metricsOf(report).map((x) => [x.name, x]));
  assert.equal(m.ttft.rating, 'good');
  assert.equal(m.ttftPerceived.rating, 'poor');
  assert.equal(m.lag.rating, 'needs-improvement');
  assert.equal(m.tpot.rating, null, 'no rating of its own where the core gave none');
  assert.equal(m.e2ePerceived, undefined, 'unknown metrics are not reported');
  assert.equal(m.ttftPerceived.attribution.diagnosis.verdict, 'client-render-bound');
});

test('SLO targets become the core spec', () => {
  assert.equal(sloSpec({ ttftPerceived: { p95: 1000 }, tpot: { p50: 50, p99: 120 } }), 'ttftPerceived 0.95 1000; tpot 0.5 50; tpot 0.99 120');
  assert.equal(sloSpec({ ttft: { median: 3, p95: 'x' } }), '');
  assert.equal(sloSpec(null), '');
});

test('resumeAt: appends, checkpoints, surrogate pairs and the core limit', () => {
  assert.equal(resumeAt('', 'abc'), 0);
  assert.equal(resumeAt('abc', 'abcdef'), 3);
  const a = 'x'.repeat(200);
  assert.equal(resumeAt(a + 'old', a + 'new'), 192);
  assert.equal(resumeAt(a + 'old', a + 'new', 64), 64);
  // A surrogate pair straddling offset 128: never resume inside it.
  const s = 'y'.repeat(127) + '😀' + 'z'.repeat(50);
  assert.equal(resumeAt(s + 'a', s + 'b'), 64);
});
