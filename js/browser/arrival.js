// The page's side of the opt-in arrival clock (js/arrival-sw.js): the stamps a service worker
// took as each chunk of a matched response passed through it, off the page's main thread. A
// chunk the page read is stamped with the worker's time for its last byte, when it is known by
// the time the chunk crosses into the core (the batch waits up to 250 ms); otherwise with the
// page's own read, as without the clock.

// Stream id → { list: [end offset, page time, …], at: the first pair not yet passed }, for the
// streams still open. Chunks are asked for in order, so each look-up starts where the last ended.
const stamps = new Map();
const MAX_STREAMS = 64;
const MAX_STAMPS = 1 << 16;
let listening = false;

/** Starts taking the worker's stamps (once per page); false where service workers are missing. */
export function listenForArrivals() {
  if (listening) return true;
  const sw = typeof navigator !== 'undefined' && navigator.serviceWorker;
  if (!sw || typeof sw.addEventListener !== 'function') return false;
  listening = true;
  sw.addEventListener('message', (e) => {
    try {
      const d = e.data;
      if (!d || typeof d.tokenpaintArrival !== 'string' || !Array.isArray(d.stamps)) return;
      let entry = stamps.get(d.tokenpaintArrival);
      if (!entry) {
        if (stamps.size >= MAX_STREAMS) stamps.delete(stamps.keys().next().value);
        stamps.set(d.tokenpaintArrival, (entry = { list: [], at: 0 }));
      }
      const list = entry.list;
      // The worker's times are absolute; the page's clock starts at its own time origin.
      const origin = performance.timeOrigin;
      for (let i = 0; i + 1 < d.stamps.length && list.length < MAX_STAMPS; i += 2) list.push(d.stamps[i], d.stamps[i + 1] - origin);
    } catch {
      /* never into the page */
    }
  });
  // Messages from a worker wait until the page asks for them.
  if (typeof sw.startMessages === 'function') sw.startMessages();
  return true;
}

/**
 * The worker's stamps for the bytes [start, end) of stream `id`, as a flat list of [end offset,
 * page time] pairs, the last one the first that covers `end` (a read of the page may span
 * several chunks the worker saw at different times); null while that one has not come.
 */
export function seenIn(/** @type {string} */ id, /** @type {number} */ start, /** @type {number} */ end) {
  const entry = stamps.get(id);
  if (!entry) return null;
  const list = entry.list;
  let i = entry.at;
  while (i < list.length && list[i] <= start) i += 2;
  let j = i;
  while (j < list.length && list[j] < end) j += 2;
  if (j >= list.length) return null;
  entry.at = j;
  return list.slice(i, j + 2);
}

/** The stream is over: its stamps are dropped. */
export function forgetArrivals(/** @type {string} */ id) {
  stamps.delete(id);
}
