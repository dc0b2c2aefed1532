// Loads the wasm core and guards every call into it.
//
// Nothing tokenpaint does may throw into the host page. A trap inside wasm (a panic, an
// out-of-memory) surfaces as an exception from the call that hit it; `call` catches it and marks
// the module broken (a trapped instance cannot be trusted), and every later call returns its
// fallback: the page goes on, unprofiled.

import initWasm, { Core } from '../pkg/tokenpaint_core.js';

let loaded = false;
let loading = null;
let broken = null;
let exports = null;

/** Loads the wasm module once; `input` overrides where it comes from (URL, Response, Module). */
export function load(input) {
  if (!loading) {
    loading = initWasm(input === undefined ? undefined : { module_or_path: input }).then((e) => {
      exports = e;
      loaded = true;
    });
  }
  return loading;
}

/** Bytes of wasm linear memory in use (it grows, it never shrinks), or null before loading. */
export function wasmMemoryBytes() {
  return exports && exports.memory ? exports.memory.buffer.byteLength : null;
}

/** Whether the module is loaded and usable. */
export function ready() {
  return loaded && broken === null;
}

/** Why the module stopped, if it did. */
export function failure() {
  return broken;
}

/** A new core (one per profiler), or null when the module is not usable. */
export function createCore() {
  if (!ready()) return null;
  try {
    return new Core();
  } catch (e) {
    broken = describe(e);
    return null;
  }
}

/** Calls `fn(core)`; on any exception returns `fallback` and disables the module. */
export function call(core, fn, fallback) {
  if (core === null || broken !== null) return fallback;
  try {
    return fn(core);
  } catch (e) {
    broken = describe(e);
    return fallback;
  }
}

function describe(e) {
  return String((e && e.message) || e).slice(0, 200);
}
