// Long animation frames (over 50 ms), with the scripts that ran in them: a PerformanceObserver
// keeps the recent ones, and the profiler hands those it has not handed yet to the core, which
// attributes each late paint to the frames that overlapped its way to the screen.
// Feature-detected (Chromium 123+: https://w3c.github.io/long-animation-frames/); where it is
// missing, reports say so in `unavailable` and attribute nothing.

import { NAMES_SCRIPT } from '../verdicts.js';

const KEEP = 200; // long frames kept (oldest dropped first)
const SCRIPTS = 5; // scripts kept per frame, longest first

/**
 * A long animation frame as kept: its number, times, and its longest scripts.
 * @typedef {ReturnType<typeof summarize>} KeptFrame
 * @typedef {{ seq: number, scripts: import('../report.js').LateScript[] }} Kept a late frame's scripts, by its number
 */

export class LongFrames {
  /** @type {KeptFrame[]} */
  #frames;
  #seq;

  constructor() {
    this.#frames = [];
    this.supported = false;
    /** @type {PerformanceObserver | null} */
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
      this.observer = new PerformanceObserver((list) => this.#keep(list.getEntries()));
      // Frames from before the first connect are useful; on a reconnect they are already kept.
      this.observer.observe({ type: 'long-animation-frame', buffered: !this.supported });
      this.supported = true;
    } catch {
      this.supported = false;
    }
  }

  /** @param {PerformanceEntryList} entries */
  #keep(entries) {
    for (const e of entries) this.#frames.push(summarize(e, ++this.#seq));
    if (this.#frames.length > KEEP) this.#frames.splice(0, this.#frames.length - KEEP);
  }

  /**
   * The frames numbered after `seq`, oldest first, with those the browser has not delivered
   * yet: its observer's callback is a task, which a page busy with queued work runs late (after
   * the report, in one run of the lab's highlighter scenario, whose report then listed none).
   * @param {number} seq
   */
  since(seq) {
    this.#keep(this.observer?.takeRecords() || []);
    return this.#frames.filter((f) => f.seq > seq);
  }

  /**
   * The scripts of the late frames a report names (by `seq`): what a saved timeline keeps to
   * name them again (see `expandFrames`).
   * @param {import('../report.js').StreamReport} report the core's report, being assembled
   * @returns {Kept[]}
   */
  scriptsOf(report) {
    const late = report.latePaints;
    const frames = late && Array.isArray(late.frames) ? late.frames : [];
    return frames.map((f) => {
      const kept = this.#frames.find((k) => k.seq === f.seq);
      return { seq: /** @type {number} */ (f.seq), scripts: kept ? kept.scripts : [] };
    });
  }

  disconnect() {
    if (this.observer) this.observer.disconnect();
    this.observer = null;
  }
}

// tokenpaint's own files: the shell (js/) and its wasm glue (pkg/), where they are served as the
// package ships them (this file's URL ends in js/browser/longframes.js). In a bundle, the app
// and tokenpaint share its URL, and nothing is taken for tokenpaint's.
export const OWN_ROOT = (() => {
  try {
    const here = import.meta.url;
    const tail = 'js/browser/longframes.js';
    return here.endsWith(tail) ? here.slice(0, -tail.length) : null;
  } catch {
    return null;
  }
})();

/**
 * Whether a script's URL is tokenpaint's own, served from `root` (`OWN_ROOT` on the page that
 * ran it; a saved timeline keeps it).
 * @param {string | null} root
 * @returns {(url: string) => boolean}
 */
export function ownBy(root) {
  return root ? (url) => url.startsWith(`${root}js/`) || url.startsWith(`${root}pkg/`) : () => false;
}

const OWN = ownBy(OWN_ROOT);

/**
 * Puts each late frame's scripts (from `kept`, by `seq`) in place of its number in a report's
 * `latePaints`, and names on the render verdicts the heaviest of them, or why none can be named
 * (`supported`: the engine reports long animation frames; `own`: which script URLs are
 * tokenpaint's own, never named).
 * @param {import('../report.js').StreamReport} report
 * @param {Kept[]} kept
 * @param {boolean} supported
 * @param {(url: string) => boolean} [own]
 */
export function expandFrames(report, kept, supported, own = OWN) {
  const late = report.latePaints;
  const frames = late && Array.isArray(late.frames) ? late.frames : [];
  for (const f of frames) {
    const k = kept.find((x) => x.seq === f.seq);
    f.scripts = k ? k.scripts : [];
    delete f.seq;
  }
  const render = (report.diagnosis || []).filter((v) => NAMES_SCRIPT.includes(v.verdict));
  if (!render.length) return;
  /** @type {ReturnType<typeof heaviest>} */
  const [script, unknown] = supported ? heaviest(frames, own) : [null, 'long-animation-frame-unsupported'];
  for (const v of render) {
    v.script = script;
    if (unknown) v.scriptUnknown = unknown;
  }
}

/**
 * The script that took most time in the frames that painted late (by its URL and function),
 * with its share of those frames: [script, null], or [null, why none]. An entry point of
 * tokenpaint's own is never the page's script: a read that the tap resolves is the entry point
 * of the microtasks that follow it, the app's own handling of the text (its parse and render)
 * among them, so its time is the app's as much as tokenpaint's.
 * @param {import('../report.js').LateFrame[]} frames
 * @param {(url: string) => boolean} [own]
 * @returns {[import('../report.js').ScriptBlame, null] | [null, NonNullable<import('../report.js').Verdict['scriptUnknown']>]}
 */
export function heaviest(frames, own = OWN) {
  if (!frames.length) return [null, 'no-late-frames'];
  const by = new Map();
  frames.forEach((f, i) => {
    for (const s of f.scripts || []) {
      if (!s.sourceURL || own(s.sourceURL)) continue;
      const key = `${s.sourceURL} ${s.sourceFunctionName || ''}`;
      const e = by.get(key) || { url: s.sourceURL, function: s.sourceFunctionName, invoker: s.invoker, ms: 0, frames: new Set() };
      e.ms += s.duration;
      e.frames.add(i);
      by.set(key, e);
    }
  });
  /** @type {{ url: string, function: string, invoker: string, ms: number, frames: Set<number> } | null} */
  let top = null;
  for (const e of by.values()) if (!top || e.ms > top.ms) top = e;
  if (!top) return [null, 'not-attributed'];
  return [{ url: top.url, function: top.function, invoker: top.invoker, ms: Math.round(top.ms * 100) / 100, share: top.frames.size / frames.length }, null];
}

/**
 * @param {any} e a long animation frame's entry (the DOM's types have none yet)
 * @param {number} seq its number
 */
function summarize(e, seq) {
  const scripts = Array.from(e.scripts || [], (/** @type {any} */ s) => ({
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
