// The paint clock (js/browser/paint.js) under a simulated event loop: requestAnimationFrame
// callbacks run when the test renders a frame, posted tasks when it runs them, and the clock
// reads the test's time. The order of tasks and renderings is the browser's choice; the ones
// here are those seen in Chromium on a busy page (issue 49's Streamdown page under a 4× CPU
// throttle, the user typing): a long input task after a frame's rendering, then the next
// frame's rendering, then the after-paint task.
import { test } from 'node:test';
import assert from 'node:assert/strict';

function loop() {
  let frames = [];
  let tasks = [];
  const env = {
    now: 0,
    /** Renders a frame that began at `start`, its rAF callbacks running at `at`. */
    render(start, at = start) {
      env.now = at;
      const run = frames;
      frames = [];
      for (const cb of run) cb(start);
    },
    /** Runs the queued tasks at `at`. */
    tasks(at) {
      env.now = at;
      const run = tasks;
      tasks = [];
      for (const cb of run) cb();
    },
  };
  const saved = { raf: globalThis.requestAnimationFrame, scheduler: globalThis.scheduler, performance: globalThis.performance };
  globalThis.requestAnimationFrame = (cb) => frames.push(cb);
  globalThis.scheduler = { postTask: (cb) => tasks.push(cb) };
  globalThis.performance = { now: () => env.now };
  env.restore = () => {
    globalThis.requestAnimationFrame = saved.raf;
    globalThis.scheduler = saved.scheduler;
    globalThis.performance = saved.performance;
  };
  return env;
}

async function clock(env) {
  const { PaintClock } = await import(`../../js/browser/paint.js?case=${Math.random()}`);
  const seen = [];
  const c = new PaintClock((frame, cutoff, after, since) => {
    seen.push({ frame, after, since });
    return 1;
  });
  return { c, seen };
}

test('each frame is closed by its after-paint task, which runs after its rendering', async () => {
  const env = loop();
  try {
    const { c, seen } = await clock(env);
    c.request();
    env.render(1000, 1001);
    env.tasks(1004);
    env.render(1016.7, 1017);
    env.tasks(1020);
    assert.deepEqual(seen, [
      { frame: 1000, after: 1004, since: NaN },
      { frame: 1016.7, after: 1020, since: 1004 },
    ]);
  } finally {
    env.restore();
  }
});

test('a frame whose after-paint task the next rendering overtook is closed by that rendering, not after it', async () => {
  const env = loop();
  try {
    const { c, seen } = await clock(env);
    c.request();
    env.render(1000, 1001);
    // A 60 ms input task, then the next frame's rendering (its rAF callbacks at 1062), and only
    // then the queued after-paint task: the first frame was painted before 1062.
    env.render(1050, 1062);
    env.tasks(1070);
    env.tasks(1071);
    assert.deepEqual(seen[0], { frame: 1000, after: 1062, since: NaN });
    // The clock goes on with the frame that overtook it: it is measured too, once.
    assert.deepEqual(seen.slice(1), [{ frame: 1050, after: 1070, since: 1062 }]);
    env.render(1083.3, 1084);
    env.tasks(1086);
    assert.deepEqual(seen.at(-1), { frame: 1083.3, after: 1086, since: 1070 });
    assert.equal(seen.length, 3);
  } finally {
    env.restore();
  }
});
