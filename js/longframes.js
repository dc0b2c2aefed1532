// Late paints, explained: a long-animation-frame observer keeps the recent long frames (> 50 ms)
// with the scripts that ran in them, and each token whose delivery lag passed a threshold is
// attributed to the long frames that overlapped its way to the screen.
// Feature-detected (Chromium 123+: https://w3c.github.io/long-animation-frames/); where it is
// missing, reports say so in `unavailable` and attribute nothing.

const KEEP = 200; // long frames kept (oldest dropped first)
const SCRIPTS = 5; // scripts kept per frame, longest first

export class LongFrames {
  constructor() {
    this.frames = [];
    this.supported = false;
    this.observer = null;
    this.connect();
  }

  /** Starts observing (again, after `disconnect`); harmless when already observing. */
  connect() {
    if (this.observer) return;
    try {
      const types = (globalThis.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
      if (!types.includes('long-animation-frame')) return;
      this.observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) this.frames.push(summarize(e));
        if (this.frames.length > KEEP) this.frames.splice(0, this.frames.length - KEEP);
      });
      // Frames from before the first connect are useful; on a reconnect they are already kept.
      this.observer.observe({ type: 'long-animation-frame', buffered: !this.supported });
      this.supported = true;
    } catch {
      this.supported = false;
    }
  }

  /** Long frames overlapping [start, end] (absolute ms). */
  overlapping(start, end) {
    return this.frames.filter((f) => f.start < end && f.start + f.duration > start);
  }

  disconnect() {
    if (this.observer) this.observer.disconnect();
    this.observer = null;
  }
}

function summarize(e) {
  const scripts = Array.from(e.scripts || [], (s) => ({
    invoker: s.invoker || null,
    invokerType: s.invokerType || null,
    sourceURL: s.sourceURL || null,
    sourceFunctionName: s.sourceFunctionName || null,
    duration: round(s.duration),
  }))
    .sort((a, b) => b.duration - a.duration)
    .slice(0, SCRIPTS);
  return { start: e.startTime, duration: e.duration, blockingDuration: e.blockingDuration, scripts };
}

const round = (v) => Math.round(v * 100) / 100;

/**
 * Adds `latePaints` to `report`: the tokens whose lag passed `threshold` ms, how many overlap a
 * long frame, and those frames (relative times) with the scripts that ran in them, the frames
 * that delayed the most tokens first. Tokens whose way to the screen overlaps a hidden interval
 * are not late, they were not visible.
 */
export function attributeLatePaints(report, frames, threshold, hidden) {
  const tl = report.timeline;
  if (!tl) return;
  const t0 = report.startTime;
  const byFrame = new Map();
  let late = 0;
  let attributed = 0;
  for (let i = 0; i < tl.arrived.length; i++) {
    const a = tl.arrived[i];
    const p = tl.painted[i];
    if (a === null || p === null || p - a <= threshold) continue;
    const start = t0 + a;
    const end = t0 + p;
    if (hidden.some(([hs, he]) => hs < end && start < he)) continue;
    late++;
    const over = frames ? frames.overlapping(start, end) : [];
    if (over.length) attributed++;
    for (const f of over) byFrame.set(f, (byFrame.get(f) || 0) + 1);
  }
  report.latePaints = {
    threshold,
    tokens: late,
    attributed: frames && frames.supported ? attributed : null,
    frames: [...byFrame.entries()]
      .sort((x, y) => y[1] - x[1] || y[0].duration - x[0].duration)
      .slice(0, 10)
      .map(([f, tokens]) => ({
        start: round(f.start - t0),
        duration: round(f.duration),
        blockingDuration: round(f.blockingDuration),
        tokens,
        scripts: f.scripts,
      })),
  };
}
