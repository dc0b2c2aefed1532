// The Resource Timing entry of a stream's request, handed to the core before its report: the
// connection set-up, when the request left (the core tells browser queueing from network time
// with it), the network's first byte, and any Server-Timing the browser exposes. The browser
// adds the entry in a task of its own after the body has been read to its end, and drops it
// once its 250-entry buffer is full: one long-lived observer per profiler keeps the entries of
// the URLs being streamed, and a report waits for its entry at most RESOURCE_WAIT_MS.

export const RESOURCE_WAIT_MS = 500;
const PER_URL = 8;

/** @typedef {PerformanceResourceTiming} Entry */

export class ResourceEntries {
  /** @type {Map<string, Entry[]>} */
  #byUrl;
  /** @type {Set<string>} */
  #wanted;
  /** @type {Set<(final?: boolean) => void>} */
  #waiters;

  constructor() {
    this.#byUrl = new Map(); // URL → recent entries, for the URLs of open streams
    this.#wanted = new Set();
    this.#waiters = new Set();
    /** @type {PerformanceObserver | null} */
    this.observer = null;
    try {
      const types = (globalThis.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
      if (!types.includes('resource')) return;
      this.observer = new PerformanceObserver((list) => this.#add(list.getEntries()));
      this.observer.observe({ type: 'resource' });
    } catch {
      this.observer = null;
    }
  }

  /**
   * Keeps entries of `url` (a stream to it is open).
   * @param {string | undefined} url
   */
  want(url) {
    if (url) this.#wanted.add(url);
  }

  /** @param {PerformanceEntryList} entries */
  #add(entries) {
    for (const entry of entries) {
      const e = /** @type {Entry} */ (entry);
      if (!this.#wanted.has(e.name)) continue;
      const list = this.#byUrl.get(e.name) || [];
      list.push(e);
      if (list.length > PER_URL) list.shift();
      this.#byUrl.set(e.name, list);
    }
    for (const w of [...this.#waiters]) w();
  }

  /**
   * The entry of the request to `url` that started at `start` and whose body ended at `end`
   * (performance.now() times). With `start` unknown (NaN: a tracked response), the entry that
   * ended nearest `end` among those that started before `before`. Null when there is none.
   * @param {string | undefined} url
   * @param {number} start
   * @param {number} end
   * @param {number} [before]
   */
  find(url, start, end, before = Infinity) {
    /** @type {Entry[]} */
    let candidates = (url && this.#byUrl.get(url)) || [];
    try {
      if (url && globalThis.performance && performance.getEntriesByName) {
        candidates = candidates.concat(/** @type {Entry[]} */ (performance.getEntriesByName(url, 'resource')));
      }
    } catch {
      /* the observer's entries only */
    }
    return best(candidates, start, end, before);
  }

  /**
   * Calls `done(entry | null)` once the entry is there, or after RESOURCE_WAIT_MS.
   * @param {string | undefined} url
   * @param {number} start
   * @param {number} end
   * @param {(entry: Entry | null) => void} done
   */
  wait(url, start, end, done) {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const check = (/** @type {boolean} */ final = false) => {
      const entry = this.find(url, start, end);
      if (!entry && !final) return;
      this.#waiters.delete(check);
      clearTimeout(timer);
      done(entry);
    };
    this.#waiters.add(check);
    timer = setTimeout(() => check(true), RESOURCE_WAIT_MS);
  }

  /**
   * Forgets `url` once no open stream uses it.
   * @param {string | undefined} url
   * @param {boolean} stillOpen
   */
  release(url, stillOpen) {
    if (!stillOpen && url) {
      this.#wanted.delete(url);
      this.#byUrl.delete(url);
    }
  }

  disconnect() {
    if (this.observer) this.observer.disconnect();
    this.observer = null;
  }
}

/**
 * @param {Entry[]} candidates
 * @param {number} start
 * @param {number} end
 * @param {number} before
 */
function best(candidates, start, end, before) {
  /** @type {Entry | null} */
  let entry = null;
  let score = Infinity;
  const known = Number.isFinite(start);
  for (const e of candidates) {
    // The entry of this request: it started when the app called fetch and ended when the body
    // did. Requests to one URL started together (a load test) differ by their end.
    const d = known ? Math.abs(e.startTime - start) : 0;
    if (d >= 100 || (!known && !(e.startTime <= before))) continue;
    const off = end > 0 && e.responseEnd > 0 ? Math.abs(e.responseEnd - end) : known ? 0 : Infinity;
    if (!known && off >= 100) continue;
    if (d + off < score) {
      score = d + off;
      entry = e;
    }
  }
  return entry;
}

/**
 * The entry's own strings, as a report shows them: its protocol and its Server-Timing.
 * @param {Entry | null | undefined} entry
 */
export function entryStrings(entry) {
  if (!entry) return { protocol: null, serverTiming: [] };
  return {
    protocol: entry.nextHopProtocol || null,
    serverTiming: Array.from(entry.serverTiming || [], (s) => ({ name: s.name, dur: s.duration, desc: s.description || null })),
  };
}
