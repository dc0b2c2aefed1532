// The core as the Node benches drive it: the page's wasm module, instantiated once per process
// (bench/run.mjs loads the parser, alignment and scale benches together), and a stream opened
// as each of them opens one, through the declared call (js/core/calls.js).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { initSync, Core } from '../pkg/tokenpaint_core.js';
import * as calls from '../js/core/calls.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
initSync({ module: readFileSync(path.join(root, 'pkg/tokenpaint_core_bg.wasm')) });

export { Core, calls };

/**
 * Opens a bench stream in `core`: an SSE response (status 200) to the request `bench`, its
 * request and headers at 0 ms. @param {Core} core @param {string} format
 */
export const openBench = (core, format) => calls.open(core, { format, contentType: 'text/event-stream', url: 'bench', start: 0, headersAt: 0, httpStatus: 200 });
