// Background load, made off the page as a load generator makes it (Node 18+, no dependencies):
// streams that share the server with the answers a page profiles, so that what the page shows
// is what users see at that concurrency. The page's own main thread and the browser's six
// connections per host do not shape it. The demo server runs it for the lab's sweep, and
// `tokenpaint/playwright` exports it for specs.

/** The most streams one load keeps open. */
export const MAX_STREAMS = 64;

/**
 * Starts `concurrency` streams (at most `cap`, itself at most 64) that each send `init` to `url`,
 * read the answer to its end, and send again, until `stop()` or `maxMs` (10 minutes). A stream
 * that fails waits 100 ms before it sends again. Returns `{ stop(), stats() }`: `stop()`
 * aborts every stream and resolves, once they have ended, to the stats, `{ streams, started,
 * done, failed, bytes }`.
 * @param {{ url?: string | URL, init?: RequestInit, concurrency?: number, cap?: number, maxMs?: number }} [options]
 */
export function backgroundLoad({ url, init = {}, concurrency = 1, cap = 16, maxMs = 600000 } = {}) {
  const streams = Math.max(0, Math.min(Math.floor(concurrency) || 0, Math.min(cap, MAX_STREAMS)));
  const ctrl = new AbortController();
  const stats = { streams, started: 0, done: 0, failed: 0, bytes: 0 };
  const timer = setTimeout(() => ctrl.abort(), maxMs);
  timer.unref?.();
  const one = async () => {
    while (!ctrl.signal.aborted) {
      stats.started++;
      try {
        const res = await fetch(/** @type {string | URL} */ (url), { ...init, signal: ctrl.signal });
        // A body is there for every status but a few (204, 304): none then.
        if (res.body) for await (const chunk of /** @type {any} */ (res.body)) stats.bytes += chunk.length;
        if (res.ok) stats.done++;
        else stats.failed++;
      } catch {
        if (ctrl.signal.aborted) return;
        stats.failed++;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const loops = Array.from({ length: streams }, one);
  return {
    stats: () => ({ ...stats }),
    async stop() {
      ctrl.abort();
      clearTimeout(timer);
      await Promise.allSettled(loops);
      return { ...stats };
    },
  };
}
