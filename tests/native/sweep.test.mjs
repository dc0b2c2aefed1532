// The lab sweep's figures (www/sweep.js), without a page: percentiles, each level's phases and
// the server's own timings, where queueing starts, and a queue that is nowhere known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantile, levelStats, queueStarts, sweepSays, sweepRows } from '../../www/sweep.js';

const report = (queue, ttft, source = 'derived') => ({
  ttftPerceived: { painted: ttft },
  e2ePerceived: { painted: ttft + 500 },
  phases: [
    { name: 'queue', ms: queue, source: queue === null ? null : source },
    { name: 'prefill', ms: 200, source: 'server' },
    { name: 'network', ms: 2, source: 'derived' },
    { name: 'decode', ms: 480, source: 'server' },
    { name: 'intermediary', ms: 0, source: 'derived' },
    { name: 'client', ms: 10, source: 'client' },
  ],
  serverTimings: { queue: null, prefill: 200, ttft: null, decode: 480 },
  diagnosis: [{ verdict: queue > 200 ? 'queue-bound' : 'healthy' }],
});

test('quantiles interpolate, and nothing known is null', () => {
  assert.equal(quantile([3, 1, 2], 0.5), 2);
  assert.equal(quantile([0, 10], 0.95), 9.5);
  assert.equal(quantile([NaN, null], 0.5), null);
});

test('a level: percentiles of perceived figures, phase medians, the server\'s own wait beside them', () => {
  // The server took the second answer up 160 ms late: its own wait is short by that much, the
  // slot's time from the page's start (seen) is not.
  const l = levelStats(8, [300, 320, 340].map((q, i) => ({ report: report(q, q + 210), truth: { queue: q - 3 - (i === 1 ? 160 : 0), seen: q + 1 } })));
  assert.equal(l.n, 3);
  assert.equal(l.ttft.p50, 530);
  assert.equal(l.phases.queue, 320);
  assert.equal(l.server.queue, 297);
  assert.equal(l.server.queueSeen, 321);
  assert.equal(levelStats(1, [{ report: report(1, 211), truth: { queue: 0 } }]).server.queueSeen, null, 'unknown, not 0');
  assert.equal(l.server.prefill, 200);
  assert.equal(l.queueSource, 'derived');
  assert.deepEqual(l.verdicts, ['queue-bound']);
  assert.equal(sweepRows([l]).length, 2);
});

test('queueing starts at the first level whose queue matters; unknown queues say so', () => {
  const at = (level, q) => levelStats(level, [{ report: report(q, 250 + (q ?? 0)), truth: {} }]);
  const levels = [at(1, 2), at(4, 30), at(8, 700), at(16, 2000)];
  assert.equal(queueStarts(levels), 8);
  assert.match(sweepSays(levels), /Queueing starts at 8 streams at once: the median answer waited 700 ms/);
  assert.equal(queueStarts([at(1, 2), at(2, 3)]), null);
  assert.match(sweepSays([at(1, 2), at(2, 3)]), /No queueing up to 2 streams/);
  assert.equal(queueStarts([at(1, null)]), undefined);
  assert.match(sweepSays([at(1, null)]), /unknown at every level/);
});
