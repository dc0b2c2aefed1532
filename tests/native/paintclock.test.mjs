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
  /** @type {{ type: string, cb: () => void }[]} */
  let listeners = [];
  const env = {
    now: 0,
    /** Renders a frame that began at `start`, its rAF callbacks running at `at`. */
    render(start, at = start) {
      env.now = at;
      const run = frames;
      frames = [];
      env.callbacks.push(run.length);
      for (const cb of run) cb(start);
    },
    /** An input event's dispatch at `at` (a task of its own): the window's listeners run. */
    input(at, type = 'keydown') {
      env.now = at;
      for (const l of listeners) if (l.type === type) l.cb();
    },
    /** How many rAF callbacks each rendering ran. */
    callbacks: [],
    /** rAF callbacks waiting for the next rendering. */
    get asked() {
      return frames.length;
    },
    /** Runs the queued tasks at `at`. */
    tasks(at) {
      env.now = at;
      const run = tasks;
      tasks = [];
      for (const cb of run) cb();
    },
  };
  const saved = { raf: globalThis.requestAnimationFrame, scheduler: globalThis.scheduler, performance: globalThis.performance, add: globalThis.addEventListener, remove: globalThis.removeEventListener };
  globalThis.requestAnimationFrame = (cb) => frames.push(cb);
  globalThis.addEventListener = (type, cb, o) => {
    listeners.push({ type, cb });
    o?.signal?.addEventListener('abort', () => {
      listeners = listeners.filter((l) => l.cb !== cb);
    });
  };
  globalThis.removeEventListener = (type, cb) => {
    listeners = listeners.filter((l) => l.type !== type || l.cb !== cb);
  };
  globalThis.scheduler = { postTask: (cb) => tasks.push(cb) };
  globalThis.performance = { now: () => env.now };
  env.restore = () => {
    globalThis.requestAnimationFrame = saved.raf;
    globalThis.scheduler = saved.scheduler;
    globalThis.performance = saved.performance;
    globalThis.addEventListener = saved.add;
    globalThis.removeEventListener = saved.remove;
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
    // then the queued after-paint task: the first frame was painted before 1062. (The input
    // event asks for the next frame: otherwise the clock asks for it from its after-paint task.)
    env.input(1002);
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

test('the paint clock and the frame meter share one rAF callback a frame, and none once idle', async () => {
  const env = loop();
  try {
    const q = `?case=${Math.random()}`;
    const { FrameLoop, FrameMeter } = await import(`../../js/browser/frames.js${q}`);
    const { PaintClock, IDLE_FRAMES } = await import(`../../js/browser/paint.js${q}`);
    const frames = new FrameLoop();
    const seen = [];
    let painting = 3;
    const c = new PaintClock((frame, cutoff, after) => {
      seen.push({ frame, after });
      return painting-- > 0 ? 1 : 0;
    }, frames);
    const meter = new FrameMeter(frames);
    meter.start();
    c.request();
    c.request();
    meter.start();
    assert.equal(env.asked, 1);
    for (let i = 0; i < 10; i++) {
      env.render(1000 + 16 * i, 1001 + 16 * i);
      // Every other frame, a long input task holds the after-paint task until after the next
      // rendering.
      if (i % 2 === 0) env.tasks(1004 + 16 * i);
      else env.input(1003 + 16 * i, 'pointermove');
    }
    assert.deepEqual(env.callbacks, Array(10).fill(1));
    assert.deepEqual(meter.since(0), Array.from({ length: 10 }, (_, i) => 1000 + 16 * i));
    // The clock closed each frame once, by its task or by the next frame, and rested after
    // IDLE_FRAMES frames with nothing painted.
    assert.equal(seen.length, 3 + IDLE_FRAMES);
    assert.deepEqual(
      seen.map((f) => f.frame),
      Array.from({ length: 3 + IDLE_FRAMES }, (_, i) => 1000 + 16 * i),
    );
    // The streams are reported: the meter stops, and with the clock at rest the loop asks for no
    // frame after the one already asked for.
    meter.stop();
    meter.stop();
    env.render(1160);
    assert.equal(env.asked, 0);
    assert.deepEqual(meter.since(0), []);
    // A commit wakes it again: one callback.
    c.request();
    assert.equal(env.asked, 1);
  } finally {
    env.restore();
  }
});

test('the next frame is asked for from the after-paint task, inside the frame only with nobody to ask after it', async () => {
  const env = loop();
  const asked = [];
  const raf = globalThis.requestAnimationFrame;
  globalThis.requestAnimationFrame = (cb) => {
    asked.push(env.inTask ? 'task' : 'frame');
    return raf(cb);
  };
  try {
    const q = `?case=${Math.random()}`;
    const { FrameLoop, FrameMeter } = await import(`../../js/browser/frames.js${q}`);
    const { PaintClock } = await import(`../../js/browser/paint.js${q}`);
    const frames = new FrameLoop();
    let painting = 2;
    const c = new PaintClock(() => (painting-- > 0 ? 1 : 0), frames);
    const meter = new FrameMeter(frames);
    meter.start();
    c.request();
    asked.length = 0;
    for (let i = 0; i < 8; i++) {
      env.render(1000 + 16 * i);
      env.inTask = true;
      env.tasks(1004 + 16 * i);
      env.inTask = false;
    }
    // While the clock runs (2 painting frames, then IDLE_FRAMES idle ones), the after-paint
    // task asks; once it rests, the meter's frames are asked for inside the callback.
    assert.deepEqual(asked, ['task', 'task', 'task', 'task', 'task', 'frame', 'frame', 'frame']);
    // Without input, a rendering that overtakes the after-paint task finds no callback: the
    // frame is closed by its task, a rendering late (the case the input listener covers).
    meter.stop();
    c.close();
    assert.equal(meter.since(0).length, 0);
  } finally {
    env.restore();
  }
});
