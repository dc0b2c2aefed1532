// The inside of one Profiler: the parts that each own their state, and the wiring between them.
//
// Data flows one way: the tap stamps body chunks (transports/), the DOM watch stamps commits
// (browser/watch.js), the paint clock stamps frames (browser/paint.js); all of it waits in the
// core link's queue (link.js) and goes into the wasm core, which owns the timeline and writes the
// report. A stream's life, from its response to its report, is stream.js; the reports and their
// listeners, reports.js. Every call into the core is guarded (wasm.js): whatever happens inside
// tokenpaint, the app's fetch, body and DOM behave exactly as without it.

import { load } from './wasm.js';
import { paintedOne } from './calls.js';
import { CoreLink } from './link.js';
import { Reports } from './reports.js';
import { PaintClock, timerResolution, IDLE_FRAMES } from '../browser/paint.js';
import { LongFrames } from '../browser/longframes.js';
import { FrameLoop, FrameMeter } from '../browser/frames.js';
import { InputTiming } from '../browser/input.js';
import { ResourceEntries } from '../browser/resource.js';
import { DomWatch } from '../browser/watch.js';
import { Learning } from './learners.js';
import { feed, wrap, failedBeforeResponse } from './stream.js';
import { Visibility } from '../browser/visibility.js';
import { devtoolsTracks } from '../export/devtools.js';
import { LazyExporter } from '../export/exporter.js';
import { sloSpec, thresholdSpec } from '../ratings.js';
import { configText } from '../options.js';
import { whenIdle } from '../sample.js';

/** The figures of progress that tell what is on screen. */
const ON_SCREEN = ['painted', 'backlog', 'ttftPerceived', 'lag', 'waiting'];

/** The shortest time between two progress deliveries (ms). */
export const PROGRESS_MS = 100;
/** The frames kept while something learns (about 4 s). */
const RECENT_FRAMES = 240;

/** @typedef {import('./stream.js').Stream} Stream */
/** @typedef {import('./stream.js').StreamOptions} StreamOptions */
/**
 * The profiler's options, its defaults filled in (js/options.js).
 * @typedef {import('../options.js').ProfilerOptions & typeof import('../options.js').DEFAULTS} Options
 */

const known = (/** @type {unknown} */ x) => (typeof x === 'number' && !Number.isNaN(x) ? x : null);

/**
 * One profiler's parts, each made here and handed explicitly to what works with it (a stream
 * gets its collaborators when it opens: stream.js `Parts`). Public, and read-only, are only what
 * the profiler's API and its tests read: the options, the open streams, the core link, the DOM
 * watch, the reports, the learning loader, the progress subscribers and the OTLP exporter.
 */
export class Hub {
  // The streams whose frames and inputs are being metered (they opened, not yet reported).
  /** @type {WeakSet<Stream>} */
  #metered = new WeakSet();
  #quiet;
  #watchedLast;
  #progressAt;
  /** @type {ReturnType<typeof setInterval> | null} */
  #idleTimer;
  #closedForGood = false;
  // Disconnecting: reports go out at once, without waiting for Resource Timing entries.
  #disconnecting = false;
  #frames;
  #resources;
  #paint;
  #meter;
  #inputs;
  #visibility;
  #measure;
  #rate;
  /** @type {typeof import('../browser/arrival.js') | null} */
  #arrival = null;
  // What learns where an answer is from the page (learn.js): streams and sockets no reader
  // holds. The DOM watch hands each the text of the elements that change.
  /** @type {Set<import('./learners.js').PageLearner>} */
  #learners = new Set();
  // The last frames, while something learns (see #onPaint).
  /** @type {Array<{ frame: number, cutoff: number, after: number }>} */
  #recentFrames = [];
  /** @type {import('./stream.js').Parts} */
  #parts;

  /**
   * `rate`: the share of streams profiled (both sample rates multiplied); `fetchFn`: the fetch
   * the profiled fetch calls.
   * @param {Options} options
   * @param {number} rate
   * @param {number} streamSampleRate
   * @param {typeof fetch | null} fetchFn
   */
  constructor(options, rate, streamSampleRate, fetchFn) {
    const o = options;
    /** @readonly */
    this.options = o;
    /** @readonly */
    this.fetchFn = fetchFn;
    /** @readonly @type {Set<Stream>} */
    this.streams = new Set();
    this.#idleTimer = null;
    this.#rate = rate;
    const frames = (this.#frames = new LongFrames());
    const resources = (this.#resources = new ResourceEntries());
    // One rAF callback a frame, for the paint clock and the frame meter both.
    const loop = new FrameLoop();
    const paint = (this.#paint = new PaintClock((frame, cutoff, after, since) => this.#onPaint(frame, cutoff, after, since), loop));
    const meter = (this.#meter = new FrameMeter(loop));
    const inputs = (this.#inputs = new InputTiming());
    // The OTLP exporter (the page's own OpenTelemetry SDK when it has one, else a collector at
    // `url`), and the DevTools track: chunks of their own, imported only when asked for.
    /** @type {LazyExporter | null} */
    let otlp = null;
    if (o.otlp && typeof o.otlp === 'object' && (o.otlp.url || o.otlp.useGlobal !== false)) {
      try {
        otlp = new LazyExporter(o.otlp);
      } catch {
        otlp = null;
      }
    }
    /** @readonly */
    this.otlp = otlp;
    this.#measure = o.devtools ? import('../export/perftrack.js').then((m) => m.measure) : null;
    // The opt-in arrival clock (a service worker the app registered, js/arrival-sw.js): a chunk
    // of its own. Until it has loaded, the worker's messages wait (startMessages), and so do
    // the reads it stamped (link.js).
    if (o.arrivalClock) {
      import('../browser/arrival.js')
        .then((m) => {
          if (m.listenForArrivals()) this.#arrival = m;
        })
        .catch(() => {});
    }
    const link = new CoreLink({
      configure: () => this.#configuration(),
      arrival: () => this.#arrival,
      beforeChunk: (s) => watch.rescanShadows(s),
    });
    /** @readonly */
    this.link = link;
    const visibility = (this.#visibility = new Visibility((since, t) => link.call((c) => c.hidden(since, t))));
    visibility.listen();
    const reports = new Reports({ options: o, rate, link, frames, visibility, exported: (r, t) => this.#exported(r, t) });
    /** @readonly */
    this.reports = reports;
    const learners = this.#learners;
    const learning = new Learning({ options: o, rate, learners, watch: () => watch, frame: () => paint.request(), reports, feed: (res, so) => this.feed(res, so) });
    /** @readonly */
    this.learning = learning;
    const watch = new DomWatch({ streams: this.streams, link, committed: () => paint.request(), learners, learning });
    /** @readonly */
    this.watch = watch;
    // The hub is the register of open streams; a stream sees it only as one (stream.js
    // `Register`: opened, closed, done, hurry), never its other parts.
    this.#parts = { options: o, sampleRate: streamSampleRate, link, watch, resources, reports, meter, inputs, learning, register: this };
    // Live progress (onProgress): its subscribers, and when it was last delivered.
    /** @readonly @type {Set<(progress: import('../report.js').Progress) => void>} */
    this.progress = new Set();
    this.#progressAt = -Infinity;
    this.progressFrames = 0;
    // Frames since the page last changed, and whether the last frame was handed to the core.
    this.#quiet = Infinity;
    this.#watchedLast = false;
    // The wasm is fetched and compiled (streaming) off the critical path: once the page is idle,
    // or at the first stream if that comes first (stream.js); `await init()` loads it at once.
    whenIdle(() => load().catch(() => {}));
  }

  // The core's configuration, one value (`Config` in src/streams.rs): what this engine gives,
  // and how figures are rated. The core ignores what does not read.
  #configuration() {
    const o = this.options;
    return configText({
      stall: o.stallMs,
      detail: Number.isInteger(o.maxTokenDetail) && o.maxTokenDetail > 0 ? o.maxTokenDetail : 0,
      slo: sloSpec(o.slo),
      late: o.lateMs,
      longFrames: this.#frames.supported,
      eventTiming: this.#inputs.supported,
      paint: this.#paint.available,
      thresholds: thresholdSpec(o.thresholds),
      timer: timerResolution(),
      noDevtoolsTrack: !!this.#measure && !devtoolsTracks(),
      sampleRate: this.#rate,
    });
  }

  /** @param {Element} element */
  observe(element) {
    if (this.#closedForGood || !element) return;
    if (this.watch.observe(element)) {
      this.#frames.connect();
      this.#visibility.listen();
    }
  }

  /**
   * A stream's sink (stream.js `feed`): for the transports, and for what reads answers in the
   * shell (answers.js).
   * @param {import('./stream.js').ResponseLike} res
   * @param {StreamOptions} o
   */
  feed(res, o) {
    return feed(this.#parts, res, o);
  }

  /**
   * The response the app reads (stream.js `wrap`).
   * @param {Response} res
   * @param {StreamOptions} o
   */
  wrap(res, o) {
    return wrap(this.#parts, res, o);
  }

  /**
   * A request that failed before any response (stream.js `failedBeforeResponse`).
   * @param {string} url
   * @param {number} start
   * @param {unknown} e
   */
  failed(url, start, e) {
    failedBeforeResponse(this.#parts, url, start, e);
  }

  /**
   * Subscribes `cb` to live progress; returns the unsubscribe.
   * @param {(progress: import('../report.js').Progress) => void} cb
   */
  onProgress(cb) {
    this.progress.add(cb);
    if (this.streams.size) this.#paint.request();
    return () => this.progress.delete(cb);
  }

  /**
   * A stream opened.
   * @param {Stream} s
   */
  opened(s) {
    this.streams.add(s);
    if (!this.#metered.has(s)) {
      this.#metered.add(s);
      this.#meter.start();
      this.#inputs.start();
    }
    // Its answer was learned from the page (learn.js): what the page showed of it before is
    // replayed, once its chunks (handed over in the same task) are in, with the frames after.
    const history = this.watch.adopt(s);
    if (history && history.length) queueMicrotask(() => this.#replay(s, history));
    if (this.progress.size) this.#paint.request();
    this.#resources.want(s.fullUrl);
    this.#watchIdle();
    this.watch.watchTarget(s);
  }

  /**
   * @param {Stream} s
   * @param {Array<[number, string]>} history what the page showed of it (`[t, text]`), oldest first
   */
  #replay(s, history) {
    try {
      this.watch.replay(s, history);
      const since = history[0][0];
      for (const f of this.#recentFrames) {
        if (f.after > since) this.link.call((c) => paintedOne(c, { ...f, id: s.id }), 0, s);
      }
    } catch {
      /* the stream goes on without its first commits */
    }
  }

  /**
   * A stream was reported (`reported`), or discarded: its frames are no longer needed, nor,
   * once reported, the Resource Timing entries of its URL (unless another open stream has it).
   * @param {Stream} s
   * @param {boolean} reported
   */
  done(s, reported) {
    if (reported) this.#resources.release(s.fullUrl, this.#streamsOf(s.fullUrl));
    if (!this.#metered.delete(s)) return;
    this.#meter.stop();
    this.#inputs.stop();
  }

  /**
   * A stream is closed (to be reported, or discarded). Returns the element that showed its
   * answer (`{ selector, how }`), or null. A discarded stream's element is not kept as shown.
   * @param {import('./stream.js').Stream} s
   * @param {boolean} [reported]
   */
  closed(s, reported = true) {
    if (s.arrival && this.#arrival) this.#arrival.forgetArrivals(s.arrival);
    const element = this.watch.forget(s, reported);
    this.streams.delete(s);
    return element;
  }

  /** Whether reports go out at once (disconnecting: no wait for Resource Timing entries). */
  hurry() {
    return this.#disconnecting;
  }

  /**
   * Whether an open stream still wants `url`'s Resource Timing entries.
   * @param {string | undefined} url
   */
  #streamsOf(url) {
    for (const s of this.streams) if (s.fullUrl === url) return true;
    return false;
  }

  /**
   * A finished report for the exporters, which only read it.
   * @param {import('../report.js').StreamReport} report
   * @param {StreamOptions['trace']} trace
   */
  #exported(report, trace) {
    try {
      if (this.#measure) this.#measure.then((measure) => measure(report)).catch(() => {});
      if (this.otlp) this.otlp.add(report, trace);
    } catch {
      /* an exporter's failure is not the report's */
    }
  }

  // A stream that nobody reads any more (the app stopped without cancelling) is reported as
  // incomplete after `idleMs` without a chunk; its bytes keep flowing to the app untouched.
  #watchIdle() {
    const idleMs = this.options.idleMs;
    if (this.#idleTimer || !(idleMs > 0)) return;
    const every = Math.max(50, Math.min(5000, idleMs / 4));
    this.#idleTimer = setInterval(() => {
      const now = performance.now();
      for (const s of [...this.streams]) {
        if (!s.ended && now - s.lastActivity > idleMs) s.finish();
      }
      if (this.streams.size === 0) this.#stopIdle();
    }, every);
    // In Node, do not keep the process alive for it.
    const timer = /** @type {{ unref?: () => void } | number | null} */ (this.#idleTimer);
    if (timer && typeof timer === 'object' && typeof timer.unref === 'function') timer.unref();
  }

  #stopIdle() {
    if (this.#idleTimer) clearInterval(this.#idleTimer);
    this.#idleTimer = null;
  }

  /**
   * A painted frame; returns 1 to keep the clock running.
   * @param {number} frame
   * @param {number} cutoff
   * @param {number} after
   * @param {number} since
   */
  #onPaint(frame, cutoff, after, since) {
    // The frame waits in the queue with the commits before it. The clock keeps running while
    // the page keeps changing.
    const changed = this.watch.takeChanged();
    // The last frames, for a stream whose answer is learned from the page after they painted it.
    if (this.#learners.size) {
      this.#recentFrames.push({ frame, cutoff, after });
      if (this.#recentFrames.length > RECENT_FRAMES) this.#recentFrames.shift();
    } else if (this.#recentFrames.length) this.#recentFrames.length = 0;
    // A frame the clock watches only for live progress (the page unchanged for IDLE_FRAMES) is
    // not handed to the core: the report sees the frames it would see with no subscriber, so
    // that watching never changes a figure (the share of late frames, above all).
    const watched = changed || this.#quiet < IDLE_FRAMES;
    this.#quiet = changed ? 0 : this.#quiet + 1;
    // A frame after one the core did not see: without a subscriber the clock had rested, so the
    // time since that frame says nothing of the main thread.
    if (watched) this.link.defer({ s: null, frame, cutoff, after, since: this.#watchedLast ? since : NaN });
    this.#watchedLast = watched;
    // Live progress keeps the clock running while a stream is open, and is read at most every
    // PROGRESS_MS: enough to watch, and the batch still crosses into the core in few flushes.
    let live = false;
    if (this.progress.size > 0 && this.streams.size > 0) {
      live = true;
      if (!(after - this.#progressAt < PROGRESS_MS)) {
        this.#progressAt = after;
        this.#deliverProgress(after);
      }
    }
    // Ended streams settle one per task: sixteen answers ending in one frame (a sweep's level)
    // made this callback one task of 700 ms (issue 59). The first here, the rest each in a task
    // of its own.
    let first = true;
    for (const s of [...this.streams]) {
      if (!s.ended || s.done) continue;
      if (first) s.checkSettled();
      else this.#settleLater(s);
      first = false;
    }
    return changed || live ? 1 : 0;
  }

  /** @type {Set<import('./stream.js').Stream>} */
  #settling = new Set();
  /** @param {import('./stream.js').Stream} s */
  #settleLater(s) {
    if (this.#settling.has(s)) return;
    this.#settling.add(s);
    if (this.#settling.size > 1) return;
    const next = () => {
      const [e] = this.#settling;
      if (!e) return;
      this.#settling.delete(e);
      try {
        e.checkSettled();
      } catch {
        /* never into the page */
      }
      if (this.#settling.size) setTimeout(next, 0);
    };
    setTimeout(next, 0);
  }

  // Hands each open stream's figures so far to the progress subscribers.
  /** @param {number} now */
  #deliverProgress(now) {
    this.progressFrames++;
    for (const s of this.streams) {
      // A stream not known to carry an answer (a heartbeat, a side request) is not shown as one.
      if (s.done || !s.isAnswer()) continue;
      /** @type {any} */
      let v = null;
      try {
        v = JSON.parse(this.link.call((c) => c.progress(s.id, now), '', s) || 'null');
      } catch {
        /* no figures for this frame */
      }
      if (!v || typeof v.arrived !== 'number') continue;
      // The core's figures, by the names of Progress (src/types.rs), and the shell's own. What is
      // on screen is known only where tokenpaint watches the page and can take paints: elsewhere
      // nothing painted is not zero painted.
      const seen = this.watch.watching(s) && this.#paint.available;
      const info = { id: s.id, url: s.url, t: known(now - s.start), ...v, backlog: v.arrived - v.painted, ended: !!s.ended };
      for (const k of ON_SCREEN) info[k] = seen ? known(info[k]) : null;
      info.ttft = known(info.ttft);
      for (const cb of [...this.progress]) {
        try {
          cb(info);
        } catch (e) {
          if (typeof reportError === 'function') reportError(e);
        }
      }
    }
  }

  /** Stops observing; streams still open are reported with what was measured. */
  disconnect() {
    this.#disconnecting = true;
    this.link.flushSoon();
    this.watch.disconnect();
    for (const s of [...this.streams]) s.finish();
    this.#paint.stop();
    this.#frames.disconnect();
    this.#stopIdle();
    if (this.otlp) this.otlp.flush();
    this.#visibility.stop();
    this.#disconnecting = false;
  }

  close() {
    this.disconnect();
    this.#closedForGood = true;
    this.#paint.close();
    this.#resources.disconnect();
    if (this.otlp) this.otlp.close();
  }
}
