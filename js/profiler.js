// The public Profiler: a drop-in fetch, DOM observation, one report per finished stream.
//
// Data flows one way: the tap stamps body chunks, the MutationObserver stamps DOM commits, the
// paint clock stamps frames, and all of it goes into the wasm core, which owns the timeline and
// writes the report. Every call into the core is guarded (core.js): whatever happens inside
// tokenpaint, the app's fetch, body and DOM behave exactly as without it.

import { load, ready, createCore, call as callCore, failure, generationOf } from './core.js';
import { tap } from './tap.js';
import { PaintClock } from './paint.js';
import { touched, changes, resumeAt, appendedText } from './dom.js';
import { LongFrames } from './longframes.js';
import { THRESHOLDS, metricsOf, sloSpec, thresholdSpec } from './ratings.js';
import { ResourceEntries, entryStrings } from './resource.js';
import { eachShadowRoot, addedElements, whyUnseen } from './shadow.js';
import { measure, summaryText } from './devtools.js';
import { OtlpExporter } from './otlp.js';

/** Default options. */
export const DEFAULTS = Object.freeze({
  format: 'auto',
  settleMs: 1000,
  maxSettleMs: 30000,
  timeline: true,
  maxReports: 1000,
  includeText: false,
  stallMs: 100,
  maxTokenDetail: 8192,
  lateMs: 50,
  label: '',
  slo: null,
  serverTiming: null,
  thresholds: THRESHOLDS,
  devtools: false,
  otlp: null,
  idleMs: 120000,
});

const OBSERVE = { childList: true, subtree: true, characterData: true };
// Chunks kept for a stream that started before the module loaded.
const MAX_EARLY = 4096;
const MAX_EARLY_BYTES = 4 * 1024 * 1024;
// Deferred chunks, appends and frames: at most this many wait, at most this long.
const MAX_QUEUE = 1024;
const MAX_QUEUED_BYTES = 256 * 1024;
const FLUSH_MS = 250;

export class Profiler {
  constructor(options) {
    const o = { ...DEFAULTS, ...(options || {}) };
    this.options = o;
    const f = o.fetch || globalThis.fetch;
    this._fetch = typeof f === 'function' ? f : null;
    this._streams = new Set();
    this._queue = [];
    this._queuedBytes = 0;
    this._flushQueued = false;
    this._flushTimer = 0;
    this._changed = false;
    this._flushSoon = () => {
      try {
        this._flush();
      } catch {
        /* never into the page */
      }
    };
    this._reports = [];
    this._listeners = new Set();
    this._metricListeners = new Set();
    this._roots = new Map();
    // Open shadow roots found inside observed elements: shadow root → { mo, owner }.
    this._shadows = new Map();
    this._lastShadowScan = 0;
    this._closed = false;
    this._paint = new PaintClock((frame, cutoff, after) => this._onPaint(frame, cutoff, after));
    // Bound, so that `fetch: profiler.fetch` can be handed to an SDK.
    this.fetch = (input, init) => this._profiledFetch(input, init, this.options.label);
    this.track = this.track.bind(this);
    this._core = null;
    this._frames = new LongFrames();
    this._framesSent = 0; // long frames handed to the core, by number
    this._resources = new ResourceEntries();
    // Hidden intervals: nothing paints while the page is hidden, so those samples are not lag.
    this._hidden = [];
    this._hiddenSince = null;
    this._onVisibility = () => this._visibility();
    this._listening = false;
    this._listen();
    this._otlp = null;
    if (o.otlp && o.otlp.url) {
      try {
        this._otlp = new OtlpExporter(o.otlp, () => this.exportSummary());
      } catch {
        this._otlp = null;
      }
    }
    load().catch(() => {}); // idempotent; `await init()` is the way to be sure it is ready
  }

  /** Sends what the OTLP exporter has batched now; resolves when sent. */
  flush() {
    return this._otlp ? this._otlp.flush() : Promise.resolve();
  }

  // Page visibility is watched while the profiler is connected.
  _listen() {
    if (this._listening || typeof document === 'undefined' || !document.addEventListener) return;
    if (document.visibilityState === 'hidden' && this._hiddenSince === null) this._hiddenSince = performance.now();
    document.addEventListener('visibilitychange', this._onVisibility);
    this._listening = true;
  }

  _visibility() {
    try {
      const t = performance.now();
      if (document.visibilityState === 'hidden') {
        if (this._hiddenSince === null) this._hiddenSince = t;
      } else if (this._hiddenSince !== null) {
        const since = this._hiddenSince;
        this._hiddenSince = null;
        this._hidden.push([since, t]);
        if (this._hidden.length > 64) this._hidden.shift();
        this._call((c) => c.hidden(since, t));
      }
    } catch {
      /* never into the page */
    }
  }

  // Chunks and appended text wait in a queue and cross into the core together, once per frame
  // (or when the queue is long, or before any other call into the core, which keeps the order):
  // one warm pass through the core per frame costs far less than one cold call per token.
  _defer(op) {
    const q = this._queue;
    q.push(op);
    if (op.bytes) this._queuedBytes += op.bytes.byteLength;
    // A long queue is flushed in a microtask: never inside the app's own read.
    if (q.length >= MAX_QUEUE || this._queuedBytes >= MAX_QUEUED_BYTES) {
      if (!this._flushQueued) {
        this._flushQueued = true;
        queueMicrotask(this._flushSoon);
      }
    } else if (!this._flushTimer) this._flushTimer = setTimeout(this._flushSoon, FLUSH_MS);
  }

  _flush() {
    if (this._flushTimer) {
      clearTimeout(this._flushTimer);
      this._flushTimer = 0;
    }
    this._flushQueued = false;
    const q = this._queue;
    if (!q.length) return;
    this._queue = [];
    this._queuedBytes = 0;
    for (const op of q) {
      const s = op.s;
      if (s === null) {
        this._callNow((c) => c.painted(op.frame, op.cutoff, op.after), 0);
        continue;
      }
      if (op.bytes) {
        if (!s.scope && !s.target) this._rescanShadows();
        this._callNow((c) => c.chunk(s.id, op.bytes, op.t), undefined, s);
        continue;
      }
      if (s.done) continue;
      const n = this._callNow((c) => c.rendered(s.id, op.text, op.from, op.t), 0, s);
      if (n < 0) s.prevText = ''; // out of step: the next change reads the whole text
      if (n > 0) {
        s.lastCommit = op.t;
        if (s.ended) this._armSettle(s);
      }
    }
  }

  // Each profiler has its own core (its own streams and summary), made once the module is ready.
  _call(fn, fallback, s) {
    if (this._queue.length) this._flush();
    return this._callNow(fn, fallback, s);
  }

  _callNow(fn, fallback, s) {
    // A stream of an older generation lived in a core that is gone: never call the new one for
    // it (its id could be another stream's there).
    if (s && s.gen !== generationOf()) return fallback;
    if (this._core !== null && this._coreGen !== generationOf()) this._core = null;
    if (this._core === null) {
      this._core = createCore();
      this._coreGen = generationOf();
      const { stallMs, maxTokenDetail } = this.options;
      const stall = typeof stallMs === 'number' ? stallMs : 100;
      const detail = Number.isInteger(maxTokenDetail) && maxTokenDetail > 0 ? maxTokenDetail : 0;
      if (this._core) callCore(this._core, (c) => c.configure(stall, Math.min(detail, 2 ** 31)));
      const slo = sloSpec(this.options.slo);
      if (this._core && slo) callCore(this._core, (c) => c.configure_slo(slo));
      // What this engine gives, and how figures are rated: the core writes the whole report.
      const late = Number.isFinite(this.options.lateMs) ? this.options.lateMs : 50;
      const spec = thresholdSpec(this.options.thresholds);
      if (this._core) callCore(this._core, (c) => c.configure_shell(late, this._frames.supported, this._paint.available, spec));
      this._framesSent = 0;
    }
    return callCore(this._core, fn, fallback);
  }

  /**
   * Watches `element`, the element in which the app renders answers, and the open shadow roots
   * inside it. `observe`, `unobserve` and `disconnect` may come in any order, any number of
   * times (React StrictMode, hot reload, route changes): observing again resumes everything.
   */
  observe(element) {
    if (this._closed || !element || this._roots.has(element) || typeof MutationObserver !== 'function') return;
    try {
      const mo = new MutationObserver((records) => this._onMutations(records, element, null));
      mo.observe(element, OBSERVE);
      this._roots.set(element, mo);
      this._frames.connect();
      this._listen();
      this._findShadows(element, element);
    } catch {
      /* never into the page */
    }
  }

  /** Stops watching `element` (and the shadow roots found in it). */
  unobserve(element) {
    const mo = this._roots.get(element);
    if (mo) mo.disconnect();
    this._roots.delete(element);
    for (const [root, w] of this._shadows) {
      if (w.owner === element) {
        w.mo.disconnect();
        this._shadows.delete(root);
      }
    }
  }

  // Observes the open shadow roots in `node` (under the observed element `owner`) not yet
  // observed; text they already show is read as if it had just been added.
  _findShadows(node, owner) {
    eachShadowRoot(node, (root) => {
      if (this._shadows.has(root)) return false;
      const mo = new MutationObserver((records) => this._onMutations(records, root, null));
      mo.observe(root, OBSERVE);
      this._shadows.set(root, { mo, owner });
      if (root.childNodes.length && this._streams.size) {
        this._onMutations([{ target: root, type: 'childList', addedNodes: [...root.childNodes], removedNodes: [] }], root, null);
      }
      return true;
    });
  }

  // A stream with text but no element yet: shadow roots attached without a DOM change the
  // observers saw (a component that attaches its root late) are looked for, at most every
  // 250 ms.
  _rescanShadows() {
    const now = performance.now();
    if (now - this._lastShadowScan < FLUSH_MS) return;
    this._lastShadowScan = now;
    for (const root of this._roots.keys()) this._findShadows(root, root);
  }

  /**
   * Profiles a response fetched by other means. Returns the response the app must read (the
   * original body can only be read once). `options.target`: the element that will show it;
   * `options.start`: when the request started (performance.now()); without it, the start is
   * taken from the request's Resource Timing entry when the report is made.
   */
  track(response, options) {
    const o = options || {};
    return this._wrap(response, {
      // Unknown: the core stands the headers' arrival in for it until Resource Timing tells.
      start: typeof o.start === 'number' ? o.start : NaN,
      url: urlOf(undefined, response),
      fullUrl: response && response.url,
      target: o.target || null,
      format: o.format,
      label: o.label !== undefined ? String(o.label) : this.options.label,
    });
  }

  /** A fetch whose streams carry `label` (summaries group by it): `fetch: profiler.labeled('gpt-4o')`. */
  labeled(label) {
    return (input, init) => this._profiledFetch(input, init, String(label));
  }

  /**
   * Calls `callback(metric)` for each headline metric of each finished stream, web-vitals
   * style: `{ name, value, rating, id, attribution }`. Returns a function that unsubscribes.
   */
  onMetric(callback) {
    if (typeof callback !== 'function') return () => {};
    this._metricListeners.add(callback);
    return () => this._metricListeners.delete(callback);
  }

  /** The summary in a compact form that `mergeSummary` (in another tab, page or user) reads. */
  exportSummary() {
    return this._call((c) => c.export_summary(), null);
  }

  /** Merges an exported summary into this profiler's; false if it could not be read. */
  mergeSummary(exported) {
    if (typeof exported !== 'string') return false;
    return this._call((c) => c.merge_summary(exported), false);
  }

  /** Calls `callback(report)` once per finished stream; returns a function that unsubscribes. */
  onReport(callback) {
    if (typeof callback !== 'function') return () => {};
    this._listeners.add(callback);
    return () => this._listeners.delete(callback);
  }

  /** The reports of finished streams, oldest first (at most `maxReports`). */
  reports() {
    return this._reports.slice();
  }

  /** Percentiles over finished streams, or null when the core is not available. */
  summary() {
    const json = this._call((c) => c.summary(), '');
    if (!json) return null;
    try {
      return JSON.parse(json);
    } catch {
      return null;
    }
  }

  /** Logs the last report and the summary to the console; returns the text. */
  print() {
    try {
      const text = summaryText(this._reports[this._reports.length - 1], this.summary());
      if (text) console.log(text);
      return text;
    } catch {
      return '';
    }
  }

  /**
   * Stops observing every element; streams still open are reported with what was measured.
   * `observe` later resumes (a React effect's cleanup may call this; StrictMode runs the effect
   * twice).
   */
  disconnect() {
    this._disconnecting = true;
    this._flushSoon();
    for (const mo of this._roots.values()) mo.disconnect();
    this._roots.clear();
    for (const w of this._shadows.values()) w.mo.disconnect();
    this._shadows.clear();
    for (const s of [...this._streams]) this._finish(s);
    this._paint.stop();
    this._frames.disconnect();
    if (this._idleTimer) clearInterval(this._idleTimer);
    this._idleTimer = null;
    if (this._otlp) this._otlp.flush();
    if (this._listening && typeof document !== 'undefined' && document.removeEventListener) {
      document.removeEventListener('visibilitychange', this._onVisibility);
      this._listening = false;
    }
    this._disconnecting = false;
  }

  /** Disconnects for good: the profiler observes nothing more and its exporter is closed. */
  close() {
    this.disconnect();
    this._closed = true;
    this._paint.close();
    this._resources.disconnect();
    if (this._otlp) this._otlp.close();
  }

  async _profiledFetch(input, init, label) {
    if (!this._fetch) throw new TypeError('fetch is not available');
    const start = performance.now();
    let res;
    try {
      res = await this._fetch.call(globalThis, input, init);
    } catch (e) {
      this._failedBeforeResponse(input, start, e);
      throw e; // exactly what the app's own fetch would have thrown
    }
    return this._wrap(res, { start, url: urlOf(input, res), fullUrl: fullUrlOf(input, res), target: null, format: undefined, label });
  }

  _wrap(res, o) {
    try {
      if (!res || !res.body) return res;
      const headersAt = performance.now();
      // Before the module has loaded (a stream started right after the page did), the chunks
      // and the end are kept with their times and replayed into the core once it is ready.
      let s = ready() ? this._open(res, o, headersAt) : undefined;
      if (s === null) return res;
      const early = [];
      let earlyBytes = 0;
      const out = tap(res, {
        chunk: (bytes, t) => {
          if (s) {
            s.lastActivity = t;
            // A copy: the app may transfer or reuse its buffer before the queue is flushed.
            this._defer({ s, bytes: bytes.slice(), t });
          } else if (s === undefined) {
            earlyBytes += bytes.byteLength;
            if (early.length < MAX_EARLY && earlyBytes <= MAX_EARLY_BYTES) early.push([bytes.slice(), t]);
            else {
              s = null; // the module takes too long: this stream goes unprofiled
              early.length = 0;
            }
          }
        },
        end: (kind, t, message) => {
          if (s) this._end(s, kind, t, message);
          else if (s === undefined) early.push([null, t, kind, message]);
        },
      });
      if (out === res) {
        if (s) this._discard(s);
        return res;
      }
      if (s === undefined) {
        load().then(
          () => {
            if (s !== undefined) return;
            s = (ready() && this._open(res, o, headersAt)) || null;
            for (const [bytes, t, kind, message] of s ? early : []) {
              if (bytes) this._call((c) => c.chunk(s.id, bytes, t), undefined, s);
              else this._end(s, kind, t, message);
            }
            early.length = 0;
            // Text the page showed in the meantime: read it now (its commits are late by the
            // wait, at most, and the report says so).
            if (s) this._catchUp(s);
          },
          () => {
            s = null;
            early.length = 0;
          },
        );
      }
      return out;
    } catch {
      return res;
    }
  }

  // Reads what the page already shows for a stream opened late.
  _catchUp(s) {
    try {
      const t = performance.now();
      this._call((c) => c.caught_up(s.id, t), undefined, s);
      let commits = 0;
      if (s.target) commits = this._read(s, s.target, t);
      else {
        for (const root of this._roots.keys()) {
          const all = { target: root, type: 'childList', addedNodes: [...root.childNodes], removedNodes: [] };
          this._onMutations([all], root, null, t);
        }
      }
      if (commits > 0) this._paint.request();
      if (s.ended) this._checkSettled(s);
    } catch {
      /* never into the page */
    }
  }

  // Opens the core's session for a response; null when the core cannot.
  _open(res, o, headersAt) {
    try {
      const contentType = (res.headers && res.headers.get('content-type')) || '';
      const format = o.format || this.options.format || 'auto';
      let hints = headerHints(res.headers);
      // The app's own mapping of its server's timings (headers it controls).
      if (typeof this.options.serverTiming === 'function') {
        try {
          hints += serverTimingLine(this.options.serverTiming(res));
        } catch {
          /* the app's mapping failed: go on without it */
        }
      }
      const id = this._call((c) => c.open(format, contentType, hints, o.url, o.start, headersAt, res.status), 0);
      if (!id) return null;
      const gen = generationOf();
      if (this.options.includeText === true) this._call((c) => c.keep_text(id));
      if (o.label) this._call((c) => c.label(id, o.label));
      const s = {
        id,
        gen,
        url: o.url,
        fullUrl: o.fullUrl,
        start: o.start,
        headersAt,
        target: o.target,
        scope: null,
        prevText: '',
        ended: false,
        endedAt: 0,
        lastCommit: 0,
        timer: 0,
        mo: null,
        done: false,
      };
      s.lastActivity = performance.now();
      this._streams.add(s);
      this._resources.want(o.fullUrl);
      this._watchIdle();
      if (s.target && typeof MutationObserver === 'function') {
        s.mo = new MutationObserver((records) => this._onMutations(records, s.target, s));
        s.mo.observe(s.target, OBSERVE);
      }
      return s;
    } catch {
      return null;
    }
  }

  _failedBeforeResponse(input, start, e) {
    const id = this._call((c) => c.open(this.options.format, '', '', urlOf(input, null), start, NaN, 0), 0);
    if (!id) return;
    const aborted = e && e.name === 'AbortError';
    this._call((c) => c.end(id, aborted ? 1 : 2, performance.now(), String((e && e.message) || e)));
    this._emit(id, { url: urlOf(input, null), start });
  }

  // DOM: find each stream's element, read its text when it changed, time the commit.
  _onMutations(records, root, only, at) {
    try {
      const t = at === undefined ? performance.now() : at;
      // Elements added here may bring open shadow roots (a chat component's own tree).
      const owner = this._roots.has(root) ? root : this._shadows.has(root) ? this._shadows.get(root).owner : null;
      const added = owner && addedElements(records);
      if (added) for (const el of added) this._findShadows(el, owner);
      let commits = 0;
      let candidates = null;
      for (const s of only ? [only] : this._streams) {
        if (s.done || (!only && s.target)) continue;
        if (only) {
          commits += this._read(s, s.target, t, records);
          continue;
        }
        if (s.scope && !s.scope.isConnected) {
          s.scope = null; // replaced by the app: find the new one
          s.prevText = '';
        }
        if (!s.scope) {
          candidates = candidates || touched(records, root);
          for (const el of candidates) {
            if (this._claimedByOther(el, s)) continue;
            const text = el.textContent || '';
            if (this._call((c) => c.claims(s.id, text), false, s)) {
              s.scope = el;
              break;
            }
          }
          if (s.scope) commits += this._read(s, s.scope, t);
        } else {
          commits += this._read(s, s.scope, t, records);
        }
      }
      if (commits > 0) this._paint.request();
    } catch {
      /* never into the page */
    }
  }

  // A stream that nobody reads any more (the app stopped without cancelling) is reported as
  // incomplete after `idleMs` without a chunk; its bytes keep flowing to the app untouched.
  _watchIdle() {
    if (this._idleTimer || !(this.options.idleMs > 0)) return;
    const every = Math.max(50, Math.min(5000, this.options.idleMs / 4));
    this._idleTimer = setInterval(() => {
      const now = performance.now();
      for (const s of [...this._streams]) {
        if (!s.ended && now - s.lastActivity > this.options.idleMs) this._finish(s);
      }
      if (this._streams.size === 0) {
        clearInterval(this._idleTimer);
        this._idleTimer = null;
      }
    }, every);
    // In Node, do not keep the process alive for it.
    if (this._idleTimer && typeof this._idleTimer.unref === 'function') this._idleTimer.unref();
  }

  _claimedByOther(el, s) {
    for (const o of this._streams) if (o !== s && !o.done && (o.scope === el || o.target === el)) return true;
    return false;
  }

  // Reads `el`'s change for stream `s`; `records` (when a mutation batch caused it) tell whether
  // `el` changed at all, and whether only nodes were added at its end.
  _read(s, el, t, records) {
    const prev = s.prevText;
    // Nodes added at the end: only they are read (the whole text is not). Nothing in `el`
    // changed: '' as well.
    const added = prev && records ? appendedText(records, el) : null;
    if (added !== null) {
      if (!added) return 0;
      s.prevText = prev + added;
      this._defer({ s, text: added, from: prev.length, t });
      this._changed = true;
      return 1; // commits are counted when the queue is flushed; the frame is watched meanwhile
    }
    if (records && !prev && !changes(records, el)) return 0;
    const text = el.textContent || '';
    if (text === prev) return 0;
    s.prevText = text;
    // Only the changed text crosses into the core: an append from the old end, a re-render
    // from the checkpoint before the first change (see resumeAt in dom.js).
    const from = resumeAt(prev, text, this._call((c) => c.resume_limit(s.id), 0, s));
    let n = this._call((c) => c.rendered(s.id, from ? text.slice(from) : text, from, t), 0, s);
    if (n < 0) n = this._call((c) => c.rendered(s.id, text, 0, t), 0, s);
    if (n > 0) {
      this._changed = true;
      s.lastCommit = t;
      if (s.ended) this._armSettle(s);
    }
    return n;
  }

  _onPaint(frame, cutoff, after) {
    // The frame waits in the queue with the commits before it. The clock keeps running while
    // the page keeps changing.
    const changed = this._changed;
    this._changed = false;
    this._defer({ s: null, frame, cutoff, after });
    for (const s of this._streams) {
      if (s.ended) {
        for (const e of [...this._streams]) if (e.ended) this._checkSettled(e);
        break;
      }
    }
    return changed ? 1 : 0;
  }

  _end(s, kind, t, message) {
    if (s.ended) return;
    s.ended = true;
    s.endKind = kind;
    s.endedAt = t;
    this._call((c) => c.end(s.id, kind, t, message || ''), undefined, s);
    this._checkSettled(s);
  }

  // A report is taken once the stream ended and all its text is painted, or once the page has
  // been quiet for settleMs after the end (text never rendered, a hidden page), at most
  // maxSettleMs after the end.
  _checkSettled(s) {
    if (s.done) return;
    const watched = s.target || this._roots.size > 0;
    if (!watched || this._call((c) => c.settled(s.id), true, s)) this._finish(s);
    else this._armSettle(s);
  }

  _armSettle(s) {
    clearTimeout(s.timer);
    const quietUntil = Math.max(s.endedAt, s.lastCommit) + this.options.settleMs;
    const deadline = s.endedAt + this.options.maxSettleMs;
    const wait = Math.max(0, Math.min(quietUntil, deadline) - performance.now());
    s.timer = setTimeout(() => this._finish(s), wait);
  }

  // What only the browser can tell, handed to the core before the report is made: why the
  // answer's element was not found, the request's Resource Timing entry (and from it the start
  // of a tracked response), and the long animation frames seen since the last report.
  _beforeReport(s) {
    try {
      if (!s.scope && !s.lastCommit) {
        const roots = s.target ? [s.target] : [...this._roots.keys(), ...this._shadows.keys()];
        const reason = roots.length ? whyUnseen(roots) : 'not-observed';
        this._call((c) => c.dom_reason(s.id, reason), undefined, s);
      }
      const e = s.entry !== undefined ? s.entry : this._resources.find(s.fullUrl, s.start, s.endedAt, s.headersAt);
      if (e) {
        if (Number.isNaN(s.start)) {
          s.start = e.startTime;
          this._call((c) => c.set_start(s.id, e.startTime), undefined, s);
        }
        const args = [e.startTime, e.domainLookupStart, e.domainLookupEnd, e.connectStart, e.connectEnd, e.requestStart, e.responseStart, e.responseEnd];
        this._call((c) => c.resource(s.id, ...args), undefined, s);
      }
      for (const f of this._frames.since(this._framesSent)) {
        this._call((c) => c.long_frame(f.seq, f.start, f.duration, f.blockingDuration));
        this._framesSent = f.seq;
      }
    } catch {
      /* the report goes without */
    }
  }

  _discard(s) {
    s.done = true;
    this._streams.delete(s);
    this._call((c) => c.finish(s.id, false), '', s);
  }

  _finish(s) {
    if (s.done) return;
    s.done = true;
    clearTimeout(s.timer);
    if (s.mo) s.mo.disconnect();
    this._streams.delete(s);
    const stillOpen = [...this._streams].some((o) => o.fullUrl === s.fullUrl);
    const emit = (entry) => {
      s.entry = entry;
      this._emit(s.id, s);
      this._resources.release(s.fullUrl, stillOpen || [...this._streams].some((o) => o.fullUrl === s.fullUrl));
    };
    // The Resource Timing entry comes in a task of its own after the body's end: a stream read
    // to its end waits for it, within a bound (a cancelled or failed one may never get one).
    const complete = s.ended && s.endKind === 0;
    const entry = this._resources.find(s.fullUrl, s.start, s.endedAt, s.headersAt);
    if (entry || !complete || !this._resources.observer || this._disconnecting) emit(entry);
    else this._resources.wait(s.fullUrl, s.start, s.endedAt, emit);
  }

  _emit(id, s) {
    // Still hidden: what is not painted yet could not be.
    if (this._hiddenSince !== null) this._call((c) => c.hidden(this._hiddenSince, Infinity));
    if (s && s.gen !== undefined) this._beforeReport(s);
    const timeline = this.options.timeline !== false;
    const json = this._call((c) => c.finish(id, timeline), '', s && s.gen !== undefined ? s : null);
    let report = null;
    if (json) {
      try {
        report = JSON.parse(json);
      } catch {
        report = null;
      }
    }
    if (!report) {
      const reason = failure();
      if (!reason) return;
      // The core failed: say so rather than stay silent, with every figure unknown.
      report = { id, url: s.url, status: 'failed', error: { kind: 'internal', code: null, message: reason }, diagnosis: [], unavailable: ['report'] };
      for (const k of UNKNOWN_WHEN_FAILED) report[k] = null;
    } else {
      // The core decided every figure; the shell only puts back the browser's own strings it
      // kept (the scripts of long frames, the entry's protocol and Server-Timing).
      try {
        this._frames.expand(report.latePaints);
        if (report.resourceTiming) Object.assign(report.resourceTiming, entryStrings(s && s.entry));
      } catch {
        /* the figures stand without them */
      }
      // Exporters only read the report.
      try {
        if (this.options.devtools) measure(report);
        if (this._otlp) this._otlp.add(report);
      } catch {
        /* an exporter's failure is not the report's */
      }
    }
    this._reports.push(report);
    if (this._reports.length > this.options.maxReports) this._reports.shift();
    for (const cb of [...this._listeners]) {
      try {
        cb(report);
      } catch (e) {
        // The callback is the app's code: report its error as the browser would, without
        // stopping the other callbacks.
        if (typeof reportError === 'function') reportError(e);
      }
    }
    if (this._metricListeners.size && report.status !== 'failed') {
      for (const m of metricsOf(report, this.options.thresholds)) {
        for (const cb of [...this._metricListeners]) {
          try {
            cb(m);
          } catch (e) {
            if (typeof reportError === 'function') reportError(e);
          }
        }
      }
    }
  }
}

// The fields of a report that a failed one cannot know (index.d.ts: FailedReport; the type test
// holds the two to the same keys).
const UNKNOWN_WHEN_FAILED = (
  'label format httpStatus startTime headers ttfb ttfc ttft e2e ttftPerceived e2ePerceived tpot itl tokens tokensSource ' +
  'tokensCountedBecause deltas detail chars bytes chunks usage reasoning refusal toolCalls toolCallSpan choices finishReason ' +
  'serverTimings lag backlogPeak matchedPct delivery stalls phases phasesTotal intermediary hidden doneMarker truncated ' +
  'malformed domReason startSource caughtUp'
).split(' ');

// The response headers the core reads (format detection now, server timings later), as
// `name: value` lines. Only these are passed: nothing else leaves the page's JS objects.
const HINT_HEADERS = [
  'x-vercel-ai-ui-message-stream',
  'x-vercel-ai-data-stream',
  'server-timing',
  'x-queue-time',
  'x-inference-time',
  'x-time-per-token',
  // Where a buffering hop may be (src/wire/hops.rs): compression, a CDN, a proxy, or none.
  'content-encoding',
  'via',
  'server',
  'cf-ray',
  'x-cache',
  'x-served-by',
  'x-amz-cf-id',
  'cdn-loop',
  'x-vercel-id',
];

function headerHints(headers) {
  if (!headers || typeof headers.get !== 'function') return '';
  let out = '';
  for (const name of HINT_HEADERS) {
    const v = headers.get(name);
    if (v !== null) out += `${name}: ${v}\n`;
  }
  return out;
}

/** `{ queue: 12, prefill: 80 }` (ms) → a Server-Timing line the core reads. */
function serverTimingLine(t) {
  if (!t || typeof t !== 'object') return '';
  const parts = [];
  for (const [name, dur] of Object.entries(t)) {
    if (/^[a-zA-Z]+$/.test(name) && Number.isFinite(dur)) parts.push(`${name};dur=${dur}`);
  }
  return parts.length ? `server-timing: ${parts.join(', ')}\n` : '';
}

/** The request URL in full, to find its Resource Timing entry (never put in a report). */
function fullUrlOf(input, res) {
  let u = (res && res.url) || '';
  if (!u && input !== undefined && input !== null) u = typeof input === 'string' ? input : input.url || String(input);
  try {
    return new URL(u, globalThis.location ? globalThis.location.href : undefined).href;
  } catch {
    return u;
  }
}

// Reports name the endpoint, not its query string or fragment, which may carry keys or tokens.
function urlOf(input, res) {
  let u = (res && res.url) || '';
  if (!u && input !== undefined && input !== null) {
    u = typeof input === 'string' ? input : input.url || String(input);
  }
  try {
    const parsed = new URL(u, globalThis.location ? globalThis.location.href : undefined);
    return parsed.origin + parsed.pathname;
  } catch {
    return String(u).split(/[?#]/)[0];
  }
}
