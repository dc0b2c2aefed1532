// The paint clock: brackets the paint of DOM commits.
//
// While commits wait for paint, one requestAnimationFrame callback runs per frame: its timestamp
// is the frame start, and a MessageChannel message posted from it runs once the frame's
// rendering is done, i.e. after the paint. A commit is painted by the first frame whose
// after-paint mark follows it, within [frame start, after paint]. The loop keeps going for a few
// frames after the last commit, so that a commit made inside a frame's own rAF callbacks (a
// typewriter, an animation) is attributed to that frame rather than to the next one.
// While a page is hidden, rAF does not run: no bracket is taken, and reports say paint was
// unavailable rather than inventing a lag.

const IDLE_FRAMES = 3;

export class PaintClock {
  /** `onPaint(frameStart, rafNow, afterPaint)` is called once per frame while armed. */
  constructor(onPaint) {
    this.onPaint = onPaint;
    this.running = false;
    this.idle = 0;
    this.frame = 0;
    this.rafNow = 0;
    this.available = typeof requestAnimationFrame === 'function' && typeof MessageChannel === 'function';
    if (this.available) {
      this.channel = new MessageChannel();
      this.channel.port1.onmessage = () => this._afterPaint();
      this._onFrame = (frameStart) => {
        this.frame = frameStart;
        this.rafNow = performance.now();
        this.channel.port2.postMessage(0);
      };
    }
  }

  /** A commit happened: bracket the frames until it (and any that follow) are painted. */
  request() {
    if (!this.available) return;
    this.idle = 0;
    if (!this.running) {
      this.running = true;
      requestAnimationFrame(this._onFrame);
    }
  }

  _afterPaint() {
    const after = performance.now();
    let painted = 0;
    try {
      painted = this.onPaint(this.frame, this.rafNow, after) || 0;
    } catch {
      /* never into the page */
    }
    if (painted === 0) this.idle += 1;
    if (this.idle >= IDLE_FRAMES) {
      this.running = false;
    } else {
      requestAnimationFrame(this._onFrame);
    }
  }

  /** Lets the clock run down (it restarts on the next `request`). */
  stop() {
    this.idle = IDLE_FRAMES;
  }

  /** Stops the clock for good: the profiler is closed. */
  close() {
    if (this.channel) {
      this.channel.port1.onmessage = null;
      this.channel.port1.close();
    }
    this.available = false;
    this.running = false;
  }
}
