// The benchmarks drive the core as a page does; when the core's calls change, each must still
// read what it is given. bench/parser.mjs passed the old positional `open` for a whole issue and
// threw at its first call, so `npm run bench` had no parse figure: here each bench's own driver
// runs on a small input, and what the core read is checked against what was sent.
import test from 'node:test';
import assert from 'node:assert/strict';
import { makeStream, tokenpaint } from '../../bench/parser.mjs';
import * as align from '../../bench/align.mjs';
import * as scale from '../../bench/scale.mjs';

test('the parser bench: the core reads every delta of the stream it is given', () => {
  const s = makeStream(64 * 1024);
  assert.ok(s.events > 100, String(s.events));
  assert.equal(tokenpaint(s.chunks), s.events);
});

test('the alignment bench: the rendered text is matched whole, re-rendered from the start or resumed', () => {
  const steps = align.workload(2000, 40);
  for (const incremental of [false, true]) assert.equal(align.run(steps, incremental).matched, 100, String(incremental));
});

test('the scale bench: one delta per token, every token matched, and a report', () => {
  const w = scale.workload(2000);
  const r = scale.run(w);
  assert.equal(r.deltas, w.tokens.length);
  assert.equal(r.matched, 100);
});
