// One requestAnimationFrame callback per frame for everything tokenpaint does with frames
// (issue 61): the paint clock (browser/paint.js) and the frame meter below each take the frame's
// start from it, and say whether they need the next frame. The loop asks for a frame only while
// one of them does, so an idle page has no callback at all. Before, the meter and the paint clock
// each asked for their own (three callbacks a frame while both ran: the meter's, the clock's,
// and the clock's check of an overtaken frame), and the meter's alone cost more than the page's
// own frame loop (bench/profile.mjs: 150 ms per 6,000 tokens).
//
// Where the next frame is asked for matters too: a requestAnimationFrame call made inside a rAF
// callback cost Chromium's main thread about twice one made in a task after the frame's paint
// (bench/profile.mjs, side by side: 190-240 against 65-90 ms per 6,000 tokens). So a user that
// posts a task of its own after the paint (the paint clock, with postTask) may promise (set
// `promised` in its callback) to ask from that task: it then calls `wake()` there if the loop is
// `owed` a frame. The loop asks inside the callback only when nobody promised.

/** @typedef {(frameStart: number) => boolean} FrameUser */

export class FrameLoop {
  /** @type {FrameUser[]} */
  #users = [];
  #asked = false;
  /** A user will ask for the next frame from a task after this frame's paint (see `tick`). */
  promised = false;
  /** The next frame is owed by that task, which has not run yet: `wake()` asks for it. */
  owed = false;

  constructor() {
    this.available = typeof requestAnimationFrame === 'function';
    this.tick = (/** @type {number} */ t) => {
      this.#asked = this.promised = false;
      let more = false;
      // The users are tokenpaint's own, none of which throws (the paint clock's callback into
      // the hub is caught there).
      for (const user of this.#users) if (user(t)) more = true;
      if (more && this.promised) this.owed = true;
      else if (more) this.wake();
    };
  }

  /**
   * `user(frameStart)` is called once per frame while the loop runs, and returns whether it needs
   * the next frame. The users are called in the order they were added.
   * @param {FrameUser} user
   */
  add(user) {
    this.#users.push(user);
  }

  /** A user needs frames: ask for the next one, unless it was asked for already. */
  wake() {
    this.owed = false;
    if (this.#asked || !this.available) return;
    requestAnimationFrame(this.tick);
    this.#asked = true;
  }
}

const MAX = 36000;

// The frame meter: from a stream's opening to its report, each frame's start is kept, so the
// report can say how many frames the page painted while the answer streamed, how many it dropped,
// and what the page did during a freeze (issue 49). It keeps at most ten minutes of frames at
// 60 Hz.
export class FrameMeter {
  /** @type {number[]} */
  #starts = [];
  #users = 0;
  #loop;

  /** @param {FrameLoop} loop */
  constructor(loop) {
    this.#loop = loop;
    loop.add((t) => this.#count(t));
  }

  /** @param {number} t the frame's start; returns whether the meter needs the next frame */
  #count(t) {
    if (this.#users === 0) return false;
    this.#starts.push(t);
    if (this.#starts.length > MAX) this.#starts.splice(0, MAX / 2);
    return true;
  }

  /** A stream opened: frames are counted until every open stream has closed. */
  start() {
    this.#users++;
    this.#loop.wake();
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
