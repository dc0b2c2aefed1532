// The page's timer resolution (js/browser/paint.js timerResolution), measured once per page: a step of
// the clock that the thread's being descheduled made long must not make a fine timer look
// coarse (reports would then say `fine-timer` is unavailable and coarsen every figure: seen in
// CI, where one unlucky measurement failed every strategy test of a renderer page). The clock
// is simulated (a descheduled thread cannot be produced on demand): each call advances `tick`
// µs of real time, and the clock shows it in steps of `res` ms; `jump` ms are lost at call `at`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

async function measure({ res, tick = 0.05, jump = 0, at = -1 }) {
  let calls = 0;
  let real = 1000.0123;
  const saved = globalThis.performance;
  globalThis.performance = {
    now() {
      if (calls++ === at) real += jump;
      real += tick / 1000;
      return Math.floor(real / res) * res;
    },
  };
  try {
    const { timerResolution } = await import(`../../js/browser/paint.js?case=${Math.random()}`);
    return { resolution: timerResolution(), calls };
  } finally {
    globalThis.performance = saved;
  }
}

test('a fine timer is measured as fine, and a coarse one as coarse', async () => {
  assert.ok(Math.abs((await measure({ res: 0.005 })).resolution - 0.005) < 1e-9);
  assert.ok(Math.abs((await measure({ res: 0.1 })).resolution - 0.1) < 1e-9);
  assert.ok(Math.abs((await measure({ res: 1 })).resolution - 1) < 1e-9);
});

test('a thread descheduled during the first step of the clock still measures a fine timer', async () => {
  for (const jump of [4, 20]) {
    const { resolution } = await measure({ res: 0.1, jump, at: 3 });
    assert.ok(Math.abs(resolution - 0.1) < 1e-9, `lost ${jump} ms: measured ${resolution} ms`);
  }
});

test('a very coarse timer (16.7 ms, a privacy mode) ends the measurement in a bounded number of calls', async () => {
  const { resolution, calls } = await measure({ res: 16.7, tick: 0.05 });
  assert.ok(resolution >= 16.7 - 1e-9, `measured ${resolution}`);
  assert.ok(calls <= 1e6 + 2, `${calls} calls`);
});

test('a clock that never moves during the measurement is coarse with its step unknown (Infinity), not fine (0)', async () => {
  const { resolution } = await measure({ res: 1000, tick: 0.05 });
  assert.equal(resolution, Infinity);
});
