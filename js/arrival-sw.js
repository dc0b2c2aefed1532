// tokenpaint's opt-in arrival clock: a service worker that passes matched responses through
// unchanged and stamps each chunk on its own thread, so that "arrived in the browser" and "read
// by the page" are two stamps (a page's reader.read() resolves on its main thread, late when
// the page is busy). Serve this file from your site (its scope must cover the chat page) and
// register it with the part of the URL to stamp:
//   navigator.serviceWorker.register('/arrival-sw.js?match=/v1/chat/completions')
// and create the Profiler with `arrivalClock: true`. It adds one header to matched responses,
// `x-tokenpaint-arrival` (the stream's id), and posts [end offset, time] pairs to the page.
// Everything else goes to the network untouched (no respondWith).
// The worker's global scope (a ServiceWorkerGlobalScope, which the page's DOM types lack).
const sw = /** @type {any} */ (self);
const match = new URL(sw.location.href).searchParams.get('match') || '/v1/';
// Unique across restarts of the worker: the page may outlive one.
const prefix = Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
let next = 0;

sw.addEventListener('install', () => sw.skipWaiting());
sw.addEventListener('activate', (/** @type {any} */ e) => e.waitUntil(sw.clients.claim()));

sw.addEventListener('fetch', (/** @type {any} */ event) => {
  if (!event.request.url.includes(match)) return;
  event.respondWith(stamped(event));
});

/** @param {any} event the worker's FetchEvent (no service-worker types in the DOM's) */
async function stamped(event) {
  // A failure here is the network's, as it would be without the worker.
  const res = await fetch(event.request);
  if (!res.body || res.type === 'opaque' || res.type === 'opaqueredirect') return res;
  const id = `${prefix}-${next++}`;
  const client = await sw.clients.get(event.clientId);
  if (!client) return res;
  // Stamps leave in batches: one message per turn of the worker's event loop at most.
  /** @type {number[]} */
  let batch = [];
  let queued = false;
  let end = 0;
  const send = () => {
    queued = false;
    if (!batch.length) return;
    try {
      client.postMessage({ tokenpaintArrival: id, stamps: batch });
    } catch {
      /* the page went away */
    }
    batch = [];
  };
  const body = res.body.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        end += chunk.byteLength;
        // Absolute time: the page's clock has another origin time.
        batch.push(end, performance.timeOrigin + performance.now());
        controller.enqueue(chunk);
        if (!queued) {
          queued = true;
          setTimeout(send, 0);
        }
      },
      flush: send,
    }),
  );
  const headers = new Headers(res.headers);
  headers.set('x-tokenpaint-arrival', id);
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}
