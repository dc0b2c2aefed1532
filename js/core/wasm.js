// Loads the wasm core and guards every call into it.
//
// Nothing tokenpaint does may throw into the host page. A trap inside wasm (a panic, an
// out-of-memory) surfaces as an exception from the call that hit it; `call` catches it and marks
// the module broken (a trapped instance cannot be trusted), and every later call returns its
// fallback: the page goes on, unprofiled.

import initWasm, { Core, Framer, __tokenpaint_reinstantiate as reinstantiate } from '../../pkg/tokenpaint_core.js';
import { RENDER } from '../options.js';

let loaded = false;
/** @type {Promise<void> | null} */
let loading = null;
/** @type {string | null} */
let broken = null;
/** @type {import('../../pkg/tokenpaint_core.js').InitOutput | null} */
let exports = null;
// Each recovery from a trap starts a new generation: cores (and stream ids) of an older one are
// gone.
let generation = 0;
/** @type {string | null} */
let lastFailure = null;
const cores = new Set();

/**
 * Loads the wasm module once; `input` overrides where it comes from (URL, Response, Module).
 * @param {import('../../pkg/tokenpaint_core.js').InitInput | Promise<import('../../pkg/tokenpaint_core.js').InitInput>} [input]
 */
export function load(input) {
  if (!loading) {
    loading = initWasm(input === undefined ? undefined : { module_or_path: input }).then((e) => {
      exports = e;
      loaded = true;
    });
  }
  return loading;
}

// `Core.render`'s result, packed as declared (src/options.json `render`, src/streams.rs
// `render_result`): the tokens committed plus `resume` times the furthest offset the next
// re-render can resume from, or `whole` when the core needs the whole text. One number, as the
// DOM watch calls it on every change of an answer's element.

/** The tokens a render committed (-1: the core needs the whole text). */
export const committedOf = (/** @type {number} */ r) => (r === RENDER.whole ? -1 : r % RENDER.resume);

/** The furthest offset the next re-render can resume from (0: the start). */
export const resumeLimitOf = (/** @type {number} */ r) => (r === RENDER.whole ? 0 : Math.floor(r / RENDER.resume));

/** Bytes of wasm linear memory in use (it grows, it never shrinks), or null before loading. */
export function wasmMemoryBytes() {
  return exports && exports.memory ? exports.memory.buffer.byteLength : null;
}

/** Whether the module is loaded and usable. */
export function ready() {
  return loaded && broken === null;
}

/** Why the module last failed, if it did (also after a recovery). */
export function failure() {
  return broken || lastFailure;
}

/** The current generation of the module (it changes when it is re-instantiated after a trap). */
export function generationOf() {
  return generation;
}

/** A new core (one per profiler), or null when the module is not usable. */
export function createCore() {
  if (!ready()) return null;
  try {
    const c = new Core();
    cores.add(c);
    return c;
  } catch (e) {
    broken = describe(e);
    return null;
  }
}

/**
 * A stream's events framed as the core frames every stream (src/read/events.rs), for the learner:
 * `push(bytes)` and `finish()` give `[name, data]` pairs, `free()` lets it go. Null when the
 * module is not usable; after a trap (a new generation) it gives nothing.
 * @param {string} contentType
 */
export function framer(contentType) {
  if (!ready()) return null;
  const gen = generation;
  /** @type {Framer | null} */
  let f;
  try {
    f = new Framer(contentType);
  } catch (e) {
    broken = describe(e);
    return null;
  }
  const live = () => f !== null && gen === generation && broken === null;
  /** @param {() => string} fn */
  const run = (fn) => {
    if (!live()) return [];
    try {
      return eventsOf(fn());
    } catch (e) {
      broken = describe(e);
      lastFailure = broken;
      recover();
      return [];
    }
  };
  return {
    push: (/** @type {Uint8Array} */ bytes) => run(() => /** @type {Framer} */ (f).push(bytes)),
    finish: () => run(() => /** @type {Framer} */ (f).finish()),
    free() {
      if (live()) /** @type {Framer} */ (f).free();
      f = null;
    },
  };
}

/**
 * The events a Framer handed over: `name length:name data length:data`, lengths in UTF-16 units.
 * @param {string} s
 * @returns {Array<[string, string]>}
 */
export function eventsOf(s) {
  /** @type {Array<[string, string]>} */
  const out = [];
  let i = 0;
  const field = () => {
    const c = s.indexOf(':', i);
    const n = Number(s.slice(i, c));
    i = c + 1 + n;
    return s.slice(c + 1, i);
  };
  while (i < s.length) out.push([field(), field()]);
  return out;
}

/**
 * Calls `fn(core)`; on any exception returns `fallback` and disables the module.
 * @template T, F
 * @param {Core | null} core
 * @param {(core: Core) => T} fn
 * @param {F} [fallback]
 * @returns {T | F}
 */
export function call(core, fn, fallback) {
  // `fallback` is returned as given: undefined when it is left out.
  const none = /** @type {F} */ (fallback);
  if (core === null || broken !== null) return none;
  try {
    return fn(core);
  } catch (e) {
    broken = describe(e);
    lastFailure = broken;
    recover();
    return none;
  }
}

/**
 * After a trap: detach every core of the old instance (so that its finalizers never free memory
 * in the new one), start a fresh instance of the same module, and a new generation. The streams
 * of the old generation are reported as failed; later ones are profiled again.
 */
function recover() {
  try {
    for (const c of cores) {
      try {
        c.__destroy_into_raw();
      } catch {
        /* already detached */
      }
    }
    cores.clear();
    const e = reinstantiate();
    if (e) exports = e;
    generation += 1;
    broken = null;
  } catch {
    /* stays broken: the page goes on unprofiled */
  }
}

/** @param {unknown} e */
function describe(e) {
  return String((e && /** @type {Error} */ (e).message) || e).slice(0, 200);
}
