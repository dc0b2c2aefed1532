// The frame meter: from a stream's opening to its report, one requestAnimationFrame callback per
// frame keeps the frame's start, so the report can say how many frames the page painted while
// the answer streamed, how many it dropped, and what the page did during a freeze (issue 49). It
// runs only then (a rAF callback that does nothing else), and keeps at most ten minutes of
// frames at 60 Hz.

const MAX = 36000;

export class FrameMeter {
  /** @type {number[]} */
  #starts = [];
  #users = 0;
  #running = false;

  constructor() {
    this.available = typeof requestAnimationFrame === 'function';
    this.tick = (/** @type {number} */ t) => {
      this.#starts.push(t);
      if (this.#starts.length > MAX) this.#starts.splice(0, MAX / 2);
      if (this.#users > 0) requestAnimationFrame(this.tick);
      else this.#running = false;
    };
  }

  /** A stream opened: frames are counted until every open stream has closed. */
  start() {
    this.#users++;
    if (this.#running || !this.available) return;
    this.#running = true;
    try {
      requestAnimationFrame(this.tick);
    } catch {
      this.#running = false;
    }
  }

  /** A stream was reported (or discarded): once no stream needs them, the frames go. */
  stop() {
    this.#users = Math.max(0, this.#users - 1);
    if (this.#users === 0) this.#starts.length = 0;
  }

  /**
   * The frame starts from `since` on (absolute ms).
   * @param {number} since
   */
  since(since) {
    const from = this.#starts.findIndex((t) => t >= since);
    return from < 0 ? [] : this.#starts.slice(from);
  }
}
