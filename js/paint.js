// The paint clock: brackets the paint of DOM commits.
//
// After a commit, one requestAnimationFrame callback marks the frame that will render it (its
// timestamp is the frame start), and a MessageChannel message posted from that callback runs
// after the frame's rendering, i.e. after the paint. The pair [frame start, after paint] brackets
// when the pixels changed. One bracket serves every commit made before the frame's callback.
// While a page is hidden, rAF does not run: no bracket is taken, and reports say paint was
// unavailable rather than inventing a lag.

export class PaintClock {
  /** `onPaint(frameStart, rafNow, afterPaint)` is called once per bracketed frame. */
  constructor(onPaint) {
    this.onPaint = onPaint;
    this.pending = false;
    this.frame = 0;
    this.rafNow = 0;
    this.available = typeof requestAnimationFrame === 'function' && typeof MessageChannel === 'function';
    if (this.available) {
      this.channel = new MessageChannel();
      this.channel.port1.onmessage = () => {
        this.pending = false;
        this.onPaint(this.frame, this.rafNow, performance.now());
      };
    }
  }

  /** Asks for a bracket of the next frame (once per frame, however many commits). */
  request() {
    if (this.pending || !this.available) return;
    this.pending = true;
    requestAnimationFrame((frameStart) => {
      this.frame = frameStart;
      this.rafNow = performance.now();
      this.channel.port2.postMessage(0);
    });
  }

  close() {
    if (this.channel) {
      this.channel.port1.onmessage = null;
      this.channel.port1.close();
    }
    this.available = false;
  }
}
