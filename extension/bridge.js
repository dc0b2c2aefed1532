// tokenpaint extension: the content script in the extension's own (isolated) world. It carries
// messages between the page-world script (page.js, which cannot reach the extension's APIs) and
// the service worker, over two events on the document that only they listen for:
// `tokenpaint:out` (page → extension: a report, the summary, the status) and `tokenpaint:in`
// (extension → page: whether WebAssembly may run under the page's Content-Security-Policy).
// Nothing is sent anywhere else.
(() => {
  let verdict = null;
  const tell = () => verdict && document.dispatchEvent(new CustomEvent('tokenpaint:in', { detail: JSON.stringify(verdict) }));
  document.addEventListener('tokenpaint:out', (e) => {
    let m = null;
    try {
      m = JSON.parse(e.detail);
    } catch {
      return;
    }
    if (m && m.type === 'hello') return tell();
    if (m && typeof m.type === 'string') chrome.runtime.sendMessage({ ...m, from: 'page' }).catch(() => {});
  });
  chrome.runtime.sendMessage({ type: 'csp?', from: 'page' }).then(
    (v) => {
      verdict = v || { wasm: true };
      tell();
    },
    () => {
      verdict = { wasm: true };
      tell();
    },
  );
})();
