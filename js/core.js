// Loads the wasm core and guards every call into it.
//
// Nothing tokenpaint does may throw into the host page. A trap inside wasm (a panic, an
// out-of-memory) surfaces as an exception from the call that hit it; `call` catches it, marks
// the core broken, and every later call returns its fallback: the page goes on, unprofiled.

import initWasm, { Core } from '../pkg/tokenpaint_core.js';

let core = null;
let loading = null;
let broken = null;

/** Loads the wasm module once; `input` overrides where it comes from (URL, Response, Module). */
export function load(input) {
  if (!loading) {
    loading = initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => {
      core = new Core();
    });
  }
  return loading;
}

/** Whether the core is loaded and usable. */
export function ready() {
  return core !== null && broken === null;
}

/** Why the core stopped, if it did. */
export function failure() {
  return broken;
}

/** Calls `fn(core)`; on any exception returns `fallback` and disables the core. */
export function call(fn, fallback) {
  if (core === null || broken !== null) return fallback;
  try {
    return fn(core);
  } catch (e) {
    broken = String((e && e.message) || e).slice(0, 200);
    return fallback;
  }
}
