// tokenpaint extension: the script in the page's own world, at document_start (start.js says what
// it does). The wasm module is in this file (nothing is fetched from the page); it is compiled
// only once the service worker has said that the page's Content-Security-Policy allows it, so that
// a strict policy meets no violation of ours. Reports and the status go to the popup through the
// bridge (bridge.js), never anywhere else.
import wasm from '../pkg/tokenpaint_core_bg.wasm';
import { start } from './start.js';

(() => {
  const send = (m) => {
    try {
      document.dispatchEvent(new CustomEvent('tokenpaint:out', { detail: JSON.stringify(m) }));
    } catch {
      /* nothing into the page */
    }
  };
  const allowed = new Promise((resolve) => {
    const on = (e) => {
      document.removeEventListener('tokenpaint:in', on);
      try {
        resolve(JSON.parse(e.detail));
      } catch {
        resolve({ wasm: true });
      }
    };
    document.addEventListener('tokenpaint:in', on);
    send({ type: 'hello' });
  });
  const bytes = allowed.then((v) => (v && v.wasm === false ? Promise.reject(new Error(v.why || 'csp')) : wasm));
  try {
    start({ bytes, send });
  } catch {
    /* never into the page */
  }
})();
