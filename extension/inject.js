// The same instrumentation as the extension (start.js), for a test runner to inject before a
// page's own scripts (Playwright's `page.addInitScript`): the wasm module is in this file, and
// reports and the status go to the runner's binding `__tokenpaint` (`page.exposeBinding`) as JSON.
import wasm from '../pkg/tokenpaint_core_bg.wasm';
import { start } from './start.js';

(() => {
  if (window !== window.top) return; // the top frame only, as the extension
  const send = (m) => {
    try {
      if (typeof globalThis.__tokenpaint === 'function') globalThis.__tokenpaint(JSON.stringify(m));
    } catch {
      /* nothing into the page */
    }
  };
  // A test runner's options for the profiler (tokenpaint/playwright's `attach(page, { options })`).
  let options;
  try {
    const o = globalThis.tokenpaintOptions;
    options = o && typeof o === 'object' ? { ...o } : undefined;
  } catch {
    options = undefined;
  }
  try {
    start({ bytes: wasm, send, options });
  } catch {
    /* never into the page */
  }
})();
