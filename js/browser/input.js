// The user's interactions while an answer streams (Event Timing, issue 49): key presses, clicks
// and taps (entries with an interactionId), from a stream's opening to its report, so the report
// can say how long typing in the prompt or pressing Stop waited for the page. Where the browser
// has no Event Timing (WebKit), nothing is observed and reports say `event-timing` unavailable.

const MAX = 1000;

/** An entry as kept: `[interactionId, start, input delay, duration]`. */
const entry = (/** @type {PerformanceEventTiming} */ e) => [e.interactionId, e.startTime, Math.max(0, e.processingStart - e.startTime), e.duration];

/**
 * Interactions as the core takes them, `[start, input delay, duration]` each: a key press gives
 * the browser's keydown, keypress and keyup entries under one interactionId, and is one
 * interaction: its start and input delay are its first entry's, its duration its longest (as
 * the browser's own INP takes it).
 * @param {number[][]} entries `[interactionId, start, delay, duration]`, in the browser's order
 * @returns {number[][]}
 */
export function interactions(entries) {
  /** @type {Map<number, number[]>} */
  const by = new Map();
  for (const [id, start, delay, duration] of entries) {
    const seen = by.get(id);
    if (!seen) by.set(id, [start, delay, duration]);
    else if (start < seen[0]) by.set(id, [start, delay, Math.max(duration, seen[2])]);
    else seen[2] = Math.max(seen[2], duration);
  }
  return [...by.values()];
}

export class InputTiming {
  /** @type {number[][]} */
  #entries = [];
  #users = 0;
  /** @type {PerformanceObserver | null} */
  #observer = null;

  constructor() {
    const types = typeof PerformanceObserver === 'function' ? PerformanceObserver.supportedEntryTypes : null;
    this.supported = Array.isArray(types) && types.includes('event');
  }

  /** A stream opened: interactions are kept until every stream has been reported. */
  start() {
    this.#users++;
    if (this.#observer || !this.supported) return;
    try {
      this.#observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (!(/** @type {PerformanceEventTiming} */ (e).interactionId)) continue;
          this.#entries.push(entry(/** @type {PerformanceEventTiming} */ (e)));
          if (this.#entries.length > MAX) this.#entries.shift();
        }
      });
      // 16 ms: the shortest the browser reports (the default is 104).
      this.#observer.observe(/** @type {PerformanceObserverInit} */ ({ type: 'event', durationThreshold: 16 }));
    } catch {
      this.#observer = null;
    }
  }

  /** A stream was reported (or discarded). */
  stop() {
    this.#users = Math.max(0, this.#users - 1);
    if (this.#users > 0) return;
    this.#entries = [];
    if (this.#observer) this.#observer.disconnect();
    this.#observer = null;
  }

  /** The interactions from `since` on, as `[start, delay, duration]` triplets (with those the
   * browser has not delivered yet), one per interaction.
   * @param {number} since
   */
  since(since) {
    if (this.#observer) for (const e of this.#observer.takeRecords()) if (/** @type {PerformanceEventTiming} */ (e).interactionId) this.#entries.push(entry(/** @type {PerformanceEventTiming} */ (e)));
    return interactions(this.#entries.filter((e) => e[1] >= since)).flat();
  }
}
