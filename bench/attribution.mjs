// tokenpaint's own main-thread time, from a CPU profile: the time of every sample with one of
// tokenpaint's frames (js/, pkg/) on its stack, the native calls it makes included (DOM reads,
// requestAnimationFrame, postTask, the stream reads of the tap, the wasm module). Steadier than
// the difference of two pages' TaskDuration, whose noise (their layout of a growing answer) is
// as large as what it measures; but not exact: what the browser does because tokenpaint asked,
// outside its frames (MutationRecords made while the app appends), is in TaskDuration only, and
// a rAF request that schedules the next frame is counted whole, where the app's next DOM change
// would have scheduled it too.

/**
 * Whether a script URL is tokenpaint's: a file under the served js/ (and its folders core/,
 * browser/, transports/, export/) or pkg/. (Until issue 33 this matched only files directly in
 * js/: once the shell moved into folders, the tap, the paint clock, the DOM watch and the queue
 * were not counted, only the wasm glue they call.)
 */
export const ours = (url) => /^\/(js|pkg)\//.test(new URL(url || 'about:blank', 'http://x').pathname);

/** A tokenpaint script's name for the tables: its path under js/ or pkg/. */
export const nameOf = (url) => new URL(url, 'http://x').pathname.replace(/^\/(js|pkg)\//, '');

/** What an entry point (the outermost tokenpaint frame of a stack) is, for the table. */
export const ENTRY_POINTS = {
  'transports/tap.js:pull': 'the pass-through body: each chunk read, handed to the app, stamped and queued',
  'browser/paint.js:after': 'the paint clock\'s after-paint task (postTask or a MessageChannel message): the frame queued, the next rAF requested (with postTask), and the report of a stream that has settled',
  'browser/frames.js:FrameLoop.tick': 'the one rAF callback (issue 61): the frame start to the frame meter and the paint clock, which posts its after-paint task',
  'core/link.js:CoreLink.#onTimer': 'the queue of chunks, commits and frames handed to the wasm module (the flush timer)',
  'core/link.js:CoreLink.flushSoon': 'the queue handed to the wasm module at once (a long queue, or the profiler disconnected)',
  'browser/watch.js:(observe)': 'the MutationObserver callback: claiming, reading the appended text',
};

/** The name of an entry point: `file:function` (an anonymous one in watch.js is the observer). */
export function entryOf(file, fn) {
  if (file === 'browser/watch.js' && fn === '') return 'browser/watch.js:(observe)';
  return `${file}:${fn || '(anonymous)'}`;
}

/**
 * `{ total, parts, within }` of a profile (`Profiler.stop`'s): ms with a tokenpaint frame on the
 * stack, that time by its entry point (the outermost tokenpaint frame), and by each of tokenpaint's
 * functions on the stack (`within`: a function's time with what it calls).
 */
export function attribute(profile, mine = ours) {
  const time = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    time.set(id, (time.get(id) || 0) + profile.timeDeltas[i]);
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  let total = 0;
  const parts = new Map();
  const within = new Map();
  const leaves = process.env.LEAVES ? new Map() : null;
  for (const n of profile.nodes) {
    const us = time.get(n.id) || 0;
    if (!us) continue;
    let outer = null;
    for (let id = n.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      if (mine(f.url)) outer = f;
    }
    if (!outer) continue;
    const ms = us / 1000;
    total += ms;
    // The time of each of tokenpaint's functions with what it calls (once per sample however
    // deep it recurses): a callback's own share inside the entry point that calls it.
    const on = new Set();
    for (let id = n.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id).callFrame;
      if (mine(f.url) && !/wasm$/.test(f.url)) on.add(`${nameOf(f.url)}:${f.functionName || '(anonymous)'}`);
    }
    for (const name of on) within.set(name, (within.get(name) || 0) + ms);
    const part = entryOf(nameOf(outer.url), outer.functionName);
    parts.set(part, (parts.get(part) || 0) + ms);
    if (leaves) {
      const f = n.callFrame;
      const path = [];
      for (let id = n.id; id !== undefined; id = parent.get(id)) {
        const c = byId.get(id).callFrame;
        if (ours(c.url) && !/wasm$/.test(c.url)) path.push(`${c.functionName || '(anon)'}:${c.lineNumber}`);
      }
      const leaf = `${part} <- ${(f.url || '').split('/').pop()}:${f.functionName || '(anonymous)'}${process.env.LEAVES === '2' ? ' [' + path.reverse().join(' > ') + ']' : ''}`;
      leaves.set(leaf, (leaves.get(leaf) || 0) + ms);
    }
  }
  return { total, parts: Object.fromEntries([...parts].sort((a, b) => b[1] - a[1])), within: Object.fromEntries(within), ...(leaves && { leaves: [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 40) }) };
}

/** Samples every `us` microseconds on `cdp`'s page while `fn` runs; its result and the profile. */
export async function underProfiler(cdp, us, fn) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: us });
  await cdp.send('Profiler.start');
  try {
    const result = await fn();
    const { profile } = await cdp.send('Profiler.stop');
    return { result, profile };
  } finally {
    await cdp.send('Profiler.disable').catch(() => {});
  }
}

/**
 * One run of the reference chat page (`window.run(args)`) under the CPU profiler: its result
 * and the profile's attribution (by `mine`, tokenpaint's files unless told).
 */
export async function profiledRun({ page, cdp }, sampleUs, args, mine = ours) {
  const { result, profile } = await underProfiler(cdp, sampleUs, () => page.evaluate((a) => window.run(a), args));
  return { result, ...attribute(profile, mine) };
}
