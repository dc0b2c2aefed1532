// The paint clock: brackets the paint of DOM commits.
//
// While commits wait for paint, the clock takes each frame's start from the frame loop
// (browser/frames.js: one requestAnimationFrame callback a frame, shared with the frame meter). Two more marks are taken per frame:
// - the rendering cutoff: a ResizeObserver callback on a detached element that is observed anew
//   in each rAF callback. ResizeObserver callbacks run inside the frame's rendering steps, after
//   every rAF callback and layout (https://html.spec.whatwg.org/#update-the-rendering), so a
//   commit made before it is in this frame and a commit made after it (in a task that ran
//   between the rendering and the after-paint mark, on a busy page) is not;
// - the after-paint mark: a task posted from the rAF callback runs once the frame's rendering is
//   done, or, if the next frame's rAF callback runs before it (a long task came between, then
//   the browser rendered again first), when it runs: it follows this frame's paint.
//   `scheduler.postTask` at user-blocking priority runs ahead of the page's queued tasks where
//   it exists (Chromium), so no task of the page comes between the rendering and it (input
//   events may: they go first), and the cutoff above is not needed (nor taken: it costs a
//   layout pass per frame); elsewhere a MessageChannel message does, with the cutoff.
// A commit is painted by the first frame whose cutoff (or, where the cutoff is not available,
// after-paint mark) follows it, within [frame start, after paint]. The loop keeps going for a
// few frames after the last commit, so that a commit made inside a frame's own rAF callbacks
// (a typewriter, an animation) is attributed to that frame rather than to the next one.
// While a page is hidden, rAF does not run: no bracket is taken, and reports say paint was
// unavailable rather than inventing a lag.

import { FrameLoop } from './frames.js';

// js/core/hub.js uses it too, to hand the core only the frames the clock would watch anyway.
export const IDLE_FRAMES = 3;

/** @type {number | undefined} */
let resolution;
/**
 * The resolution of `performance.now()` in this page (ms), measured once: the smallest step seen
 * in a short spin (three steps, or two once 3 ms have passed; about 0.3 ms where the timer is
 * fine). WebKit's is 1 ms, and reports then say `fine-timer` is unavailable. A step during which
 * the thread was descheduled is long whatever the timer; it never ends the spin on its own, so
 * the next step (a preemption spans one step, not two in a row) gives the real resolution.
 */
export function timerResolution() {
  if (resolution !== undefined) return resolution;
  let last = performance.now();
  const until = last + 3;
  let step = Infinity;
  for (let seen = 0, i = 0; seen < 3 && i < 1e6; i++) {
    const t = performance.now();
    if (t === last) continue;
    step = Math.min(step, t - last);
    last = t;
    seen++;
    if (t > until && seen >= 2) break;
  }
  // A clock that never moved in the spin is coarser than the spin itself: Infinity, which the
  // core reads as coarse with its resolution unknown (not 0, which read as a fine timer).
  resolution = Number.isFinite(step) ? Math.round(step * 1000) / 1000 : Infinity;
  return resolution;
}

export class PaintClock {
  /** @type {ResizeObserver | null | undefined} */
  #ro;
  /** @type {MessageChannel | undefined} */
  #channel;
  #running;
  #idle;
  #since;
  #cutoff;
  /** @type {HTMLSpanElement | undefined} */
  #probe;
  /** @type {() => void} */
  #post = () => {};
  #frame;
  /** @type {(frameStart: number) => void} */
  #onFrame = () => {};
  #onPaint;
  #waiting = false;
  #loop;
  /** @type {AbortController | undefined} */
  #inputs;

  /**
   * `onPaint(frameStart, cutoff, afterPaint, since)` is called once per frame while armed;
   * `since` is the after-paint mark of the frame before when that frame asked for this one
   * (NaN after a rest): a frame whose after-paint mark comes much later than a frame after it
   * was asked for tells that the main thread was blocked in between.
   * The frames come from `loop` (its own when none is given).
   * @param {(frame: number, cutoff: number, after: number, since: number) => number} onPaint
   * @param {FrameLoop} [loop]
   */
  constructor(onPaint, loop = new FrameLoop()) {
    this.#onPaint = onPaint;
    this.#loop = loop;
    this.#running = false;
    this.#since = NaN;
    this.#idle = 0;
    this.#frame = 0;
    this.#cutoff = NaN;
    const sched = globalThis.scheduler;
    const postTask = sched && typeof sched.postTask === 'function';
    this.available = loop.available && (postTask || typeof MessageChannel === 'function');
    if (!this.available) return;
    const after = () => {
      this.#afterPaint();
      if (loop.owed) loop.wake();
    };
    if (postTask) {
      // No signal is passed, so the promise never rejects: nothing to catch.
      this.#post = () => sched.postTask(after, { priority: 'user-blocking' });
    } else {
      this.#channel = new MessageChannel();
      this.#channel.port1.onmessage = after;
      const port = this.#channel.port2;
      this.#post = () => port.postMessage(0);
    }
    try {
      // The cutoff is needed only where the after-paint task can be overtaken by the page's
      // own queued tasks: with a user-blocking postTask it runs ahead of them. Observing a
      // ResizeObserver every frame also costs a layout pass per frame (the spec's resize loop
      // re-runs style and layout after delivering), so it is used only without postTask.
      if (!postTask && typeof ResizeObserver === 'function' && typeof document !== 'undefined') {
        this.#probe = document.createElement('span');
        this.#ro = new ResizeObserver(() => {
          this.#cutoff = performance.now();
        });
      }
    } catch {
      this.#ro = null;
    }
    this.#onFrame = (frameStart) => {
      this.#frame = frameStart;
      this.#cutoff = NaN;
      if (this.#ro && this.#probe) {
        try {
          this.#ro.unobserve(this.#probe);
          this.#ro.observe(this.#probe);
        } catch {
          /* no cutoff for this frame */
        }
      }
      this.#waiting = true;
      this.#post();
      if (postTask) loop.promised = true;
    };
    // With postTask the next frame is asked for from the after-paint task (the loop's cheaper
    // place, browser/frames.js). That task is overtaken by the next rendering only when input
    // comes first (a user-blocking task runs ahead of the page's own tasks, not of input events):
    // an input event while it is pending asks for the next frame at once, so that the next
    // frame's callback runs and closes this frame if the rendering comes first. Listened to on
    // the window, in the capture phase, passively: the event's dispatch (every listener of it,
    // the app's long handler too) is one task, before that rendering.
    if (postTask && typeof addEventListener === 'function') {
      try {
        const onInput = () => {
          if (loop.owed) loop.wake();
        };
        const o = { capture: true, passive: true, signal: (this.#inputs = new AbortController()).signal };
        // One of each input task: a key's keypress, input and the mouse and touch events of a
        // pointer (click too) are dispatched in the task of its key or pointer event.
        for (const type of ['keydown', 'keyup', 'pointerdown', 'pointerup', 'pointermove', 'wheel']) addEventListener(type, onInput, o);
      } catch {
        /* not overtaken-proof on input: the after-paint mark may come a rendering late */
      }
    }
    loop.add((frameStart) => {
      // The next frame's rAF callback runs after this frame's paint: where it comes before the
      // after-paint task (a long task ran after the rendering, then the browser rendered again
      // before it), it closes this frame, and the clock goes on with its frame.
      if (this.#waiting && !this.#afterPaint()) return false;
      if (this.#running) this.#onFrame(frameStart);
      return this.#running;
    });
  }

  /** A commit happened: bracket the frames until it (and any that follow) are painted. */
  request() {
    if (!this.available) return;
    this.#idle = 0;
    if (!this.#running) {
      this.#running = true;
      this.#loop.wake();
    }
  }

  /** Closes the frame. Returns whether the clock goes on (the loop then calls it next frame). */
  #afterPaint() {
    // A frame already closed (its after-paint task, overtaken, runs late): nothing to do.
    if (!this.available || !this.#waiting) return false;
    this.#waiting = false;
    const after = performance.now();
    let painted = 0;
    try {
      painted = this.#onPaint(this.#frame, this.#cutoff, after, this.#since) || 0;
    } catch {
      /* never into the page */
    }
    if (painted === 0) this.#idle += 1;
    if (this.#idle >= IDLE_FRAMES) {
      this.#running = false;
      this.#since = NaN;
      return false;
    }
    this.#since = after;
    return true;
  }

  /** Lets the clock run down (it restarts on the next `request`). */
  stop() {
    this.#idle = IDLE_FRAMES;
  }

  /** Stops the clock for good: the profiler is closed. */
  close() {
    if (this.#channel) {
      this.#channel.port1.onmessage = null;
      this.#channel.port1.close();
    }
    if (this.#ro) this.#ro.disconnect();
    this.#inputs?.abort();
    this.available = false;
    this.#running = false;
  }
}
