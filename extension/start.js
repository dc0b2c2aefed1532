// What runs in a page nobody changed, before the page's own scripts: tokenpaint's npm entry with
// its wasm module, `instrument()` (fetch, XMLHttpRequest, EventSource and WebSocket patched before
// the page can keep a reference to them), `observe()` with no element (each answer's element is
// found in the document), and the overlay. The extension's page script (page.js) and the script
// a test runner injects (inject.js) both start it; they differ in where the wasm bytes come from
// and where reports go. The page's own objects, requests, responses and events are unchanged: the
// app reads the same bytes at the same time.
import init, { Profiler } from '../js/index.js';
import { overlay } from '../js/overlay.js';
import { refetch } from '../js/transports/instrument.js';

// Static files are never answers: they are left alone, not even passed through.
const STATIC = /\.(?:m?js|css|png|jpe?g|gif|webp|avif|svg|ico|woff2?|ttf|wasm|map|mp4|webm)(?:[?#]|$)/i;

/**
 * Starts profiling the page. `bytes`: the wasm module's bytes, or a promise of them (rejected: it
 * cannot run here, and the overlay says why); `send(message)`: where reports (`{ type: 'report',
 * report, summary }`) and the status (`{ type: 'status', status: 'on' | 'blocked', why }`) go.
 */
export function start({ bytes, send, options }) {
  let panel = null;
  let blocked = null;
  const profiler = new Profiler(options);
  Promise.resolve(init(bytes)).then(
    () => send({ type: 'status', status: 'on' }),
    (e) => {
      blocked = String((e && e.message) || e);
      send({ type: 'status', status: 'blocked', why: blocked });
      if (panel) panel.note(`cannot measure here: ${blocked}`);
    },
  );
  // Every request but static files, and only the streams found to carry an answer are reported
  // (`guess`): a heartbeat, a status stream or a JSON side request is not an answer.
  profiler.instrument({ match: (url) => !STATIC.test(url), guess: true });
  // A page that puts a native fetch of its own in place of ours (some frameworks take a fresh one
  // from an iframe) is patched again: looked at once it has loaded, and a few seconds later.
  const again = () => refetch() && send({ type: 'note', note: 'fetch-replaced' });
  addEventListener('load', () => {
    again();
    setTimeout(again, 1000);
    setTimeout(again, 5000);
  }, { once: true });
  profiler.observe();
  profiler.onReport((r) => {
    // An answer, a request for one that failed, or an answer it could not read: other
    // responses (JSON, HTML) are not.
    const unread = r.read && r.read.by === 'none';
    if (!(r.deltas > 0 || unread || r.status === 'failed' || r.status === 'aborted' || r.status === 'error')) return;
    send({ type: 'report', report: r, summary: profiler.exportSummary() });
  });
  const show = () => {
    if (panel || !document.body) return;
    panel = overlay(profiler);
    if (blocked) panel.note(`cannot measure here: ${blocked}`);
  };
  if (document.body) show();
  else document.addEventListener('DOMContentLoaded', show, { once: true });
  return profiler;
}
