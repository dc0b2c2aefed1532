// tokenpaint: where the latency of a streamed LLM answer goes.
//
//   import init, { Profiler } from 'tokenpaint';
//   await init();
//   const profiler = new Profiler();
//   profiler.observe(chatContainer);
//   const res = await profiler.fetch(url, init);
//   profiler.onReport((report) => console.log(report));

import { load, wasmMemoryBytes } from './core/wasm.js';

export { wasmMemoryBytes };

export { Profiler, DEFAULTS } from './profiler.js';
export { THRESHOLDS } from './ratings.js';

/**
 * Loads the WebAssembly core. Resolves once profiling is possible; safe to call many times.
 * @param {Parameters<typeof import('./core/wasm.js').load>[0]} [input]
 */
export default function init(input) {
  return load(input);
}
