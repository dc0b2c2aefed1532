// Long animation frames (over 50 ms), with the scripts that ran in them: a PerformanceObserver
// keeps the recent ones, and the profiler hands those it has not handed yet to the core, which
// attributes each late paint to the frames that overlapped its way to the screen.
// Feature-detected (Chromium 123+: https://w3c.github.io/long-animation-frames/); where it is
// missing, reports say so in `unavailable` and attribute nothing.

const KEEP = 200; // long frames kept (oldest dropped first)
const SCRIPTS = 5; // scripts kept per frame, longest first

export class LongFrames {
  #frames;
  #seq;

  constructor() {
    this.#frames = [];
    this.supported = false;
    this.observer = null;
    this.#seq = 0; // frames seen so far; each frame carries its number
    this.connect();
  }

  /** Starts observing (again, after `disconnect`); harmless when already observing. */
  connect() {
    if (this.observer) return;
    try {
      const types = (globalThis.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
      if (!types.includes('long-animation-frame')) return;
      this.observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) this.#frames.push(summarize(e, ++this.#seq));
        if (this.#frames.length > KEEP) this.#frames.splice(0, this.#frames.length - KEEP);
      });
      // Frames from before the first connect are useful; on a reconnect they are already kept.
      this.observer.observe({ type: 'long-animation-frame', buffered: !this.supported });
      this.supported = true;
    } catch {
      this.supported = false;
    }
  }

  /** The frames numbered after `seq`, oldest first. */
  since(seq) {
    return this.#frames.filter((f) => f.seq > seq);
  }

  /** Puts each late frame's scripts in place of its number (`seq`) in a report's `latePaints`. */
  expand(late) {
    if (!late || !Array.isArray(late.frames)) return;
    for (const f of late.frames) {
      const kept = this.#frames.find((k) => k.seq === f.seq);
      f.scripts = kept ? kept.scripts : [];
      delete f.seq;
    }
  }

  disconnect() {
    if (this.observer) this.observer.disconnect();
    this.observer = null;
  }
}

function summarize(e, seq) {
  const scripts = Array.from(e.scripts || [], (s) => ({
    invoker: s.invoker || null,
    invokerType: s.invokerType || null,
    sourceURL: s.sourceURL || null,
    sourceFunctionName: s.sourceFunctionName || null,
    duration: Math.round(s.duration * 100) / 100,
  }))
    .sort((a, b) => b.duration - a.duration)
    .slice(0, SCRIPTS);
  return { seq, start: e.startTime, duration: e.duration, blockingDuration: e.blockingDuration, scripts };
}
