// Sampling: one draw per page load, shared by every profiler on the page (and by the stub in
// lazy.js and the profiler it loads), so that a page is either profiled or not, and two
// profilers with the same rate agree.

/** @type {number | null} */
let draw = null;

/**
 * The sample rate an option asks for: a number clamped to [0, 1]; anything else (not given, not
 * a number) is 1.
 */
export function rateOf(/** @type {unknown} */ r) {
  if (typeof r !== 'number' || Number.isNaN(r)) return 1;
  return r <= 0 ? 0 : r >= 1 ? 1 : r;
}

/**
 * Whether this page load is in a sample of `rate`.
 * @param {number} rate
 */
export function inSample(rate) {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  if (draw === null) draw = Math.random();
  return draw < rate;
}

/**
 * Calls `fn` once the page is idle (requestIdleCallback where it exists, else shortly after);
 * returns nothing. Never throws.
 */
export function whenIdle(/** @type {() => void} */ fn) {
  try {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: 2000 });
    else setTimeout(fn, 50);
  } catch {
    /* never into the page */
  }
}

const none = () => {};

/**
 * Makes `target` a profiler that profiles nothing (an unsampled page): every method is there and
 * does nothing, `fetch` is the page's own (the same response object, untouched), `track` gives
 * back what it was given.
 */
export function inert(/** @type {Record<string, unknown>} */ target, /** @type {typeof fetch | null} */ fetchFn) {
  const pass = (/** @type {RequestInfo | URL} */ input, /** @type {RequestInit} [init] */ init) => (fetchFn ? fetchFn.call(globalThis, input, init) : Promise.reject(new TypeError('fetch is not available')));
  for (const k of ['observe', 'unobserve', 'disconnect', 'close']) target[k] = none;
  for (const k of ['instrument', 'onReport', 'onMetric', 'onProgress']) target[k] = () => none;
  for (const k of ['summary', 'exportSummary']) target[k] = () => null;
  return Object.assign(target, {
    sampled: false,
    ready: Promise.resolve(null),
    fetch: pass,
    labeled: () => pass,
    track: (/** @type {unknown} */ x) => x,
    stream: () => ({ chunk: none, end: none, error: none }),
    reports: () => [],
    mergeSummary: () => false,
    print: () => '',
    flush: () => Promise.resolve(),
  });
}
