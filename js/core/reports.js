// Reports: the core writes each finished stream's report; the shell puts back the browser's own
// strings, keeps the last `maxReports`, and hands it to the exporters and the app's listeners.

import { failure } from './wasm.js';
import { entryStrings } from '../browser/resource.js';
import { metricsOf } from '../ratings.js';
import { FAILED_NULL } from '../schema.js';
import { assembleFigures, assembleRead } from './assemble.js';
import { OWN_ROOT } from '../browser/longframes.js';

// The app's callbacks: an exception is reported as the browser reports a throwing listener,
// without stopping the other callbacks.
/**
 * @template T
 * @param {Set<(value: T) => void>} listeners
 * @param {T} value
 */
function each(listeners, value) {
  for (const cb of [...listeners]) {
    try {
      cb(value);
    } catch (e) {
      if (typeof reportError === 'function') reportError(e);
    }
  }
}

/** @typedef {import('../report.js').Report} Report */
/** @typedef {import('../report.js').FailedReport} FailedReport */

/**
 * What the reports work with, handed over by their owner (hub.js): the options, the share of
 * streams profiled, the core link, the long frames, the page's visibility, and the exporters.
 * @typedef {object} ReportParts
 * @property {import('./hub.js').Options} options
 * @property {number} rate
 * @property {import('./link.js').CoreLink} link
 * @property {import('../browser/longframes.js').LongFrames} frames
 * @property {import('../browser/visibility.js').Visibility} visibility
 * @property {(report: import('../report.js').StreamReport, trace: import('./stream.js').StreamOptions['trace']) => void} exported
 */

export class Reports {
  /** @type {ReportParts} */
  #parts;

  /** @param {ReportParts} parts */
  constructor(parts) {
    this.#parts = parts;
    /** @type {Report[]} */
    this.list = [];
    /** @type {Set<(report: Report) => void>} */
    this.listeners = new Set();
    /** @type {Set<(metric: ReturnType<typeof metricsOf>[number]) => void>} */
    this.metricListeners = new Set();
  }

  /** The last report, if any. */
  last() {
    return this.list[this.list.length - 1];
  }

  /**
   * Reports stream `id` (`s`: its Stream, or `{ url, start }` for a request that never had a response).
   * @param {number} id
   * @param {import('./stream.js').Stream | { url: string, start: number, transport: 'fetch', beforeReport?: undefined }} s
   */
  emit(id, s) {
    const { link, visibility, options, rate, frames, exported } = this.#parts;
    // Still hidden: what is not painted yet could not be.
    const hidden = visibility.hiddenSince;
    if (hidden !== null) link.call((c) => c.hidden(hidden, Infinity));
    const stream = typeof s.beforeReport === 'function' ? /** @type {import('./stream.js').Stream} */ (s) : null;
    if (stream) {
      stream.beforeReport();
      // The long animation frames seen since the last report.
      link.sendFrames(frames);
    }
    const timeline = options.timeline !== false;
    const save = options.saveTimeline === true;
    const json = link.call((c) => c.finish(id, timeline, save), '', stream);
    /** @type {import('../report.js').StreamReport | FailedReport | null} */
    let report = null;
    if (json) {
      try {
        report = /** @type {import('../report.js').StreamReport} */ (JSON.parse(json));
      } catch {
        report = null;
      }
    }
    // A stream the profiler only guessed at that carried no answer (a heartbeat, a status
    // stream, a JSON side request) is not reported.
    if (report && stream && !stream.isAnswer()) return;
    /** @type {import('./assemble.js').PageParts} */
    const page = {
      sampleRate: rate,
      scripts: [],
      longFrames: frames.supported,
      ownRoot: OWN_ROOT,
      entry: null,
      element: (stream && stream.element) || null,
      read: (stream && stream.read) || null,
      start: (stream && stream.startBy) || null,
    };
    if (!report) {
      const reason = failure();
      if (!reason) return;
      // The core failed: say so rather than stay silent, with every figure unknown.
      // Its nulls are put in next, its element, read and start by assembleRead below.
      report = /** @type {FailedReport} */ (/** @type {Omit<FailedReport, import('../report.js').FailedNull | 'element' | 'read' | 'start'>} */ ({ id, url: s.url, transport: s.transport, status: 'failed', error: { kind: 'internal', code: null, message: reason }, diagnosis: [], unavailable: ['report'], sampleRate: rate }));
      for (const k of FAILED_NULL) report[k] = null;
    } else {
      try {
        page.scripts = frames.scriptsOf(report);
        if (report.resourceTiming) page.entry = entryStrings(stream && stream.entry);
      } catch {
        /* the figures stand without them */
      }
      assembleFigures(report, page);
      exported(report, stream && stream.trace);
    }
    assembleRead(report, page);
    // A saved timeline carries what the page told, to be assembled again as here: a copy, so
    // that the report shares no object with it (a report crossing to another context, a test
    // runner's or a worker's, keeps both whole).
    const saved = /** @type {import('../report.js').StreamReport} */ (report).saved;
    if (saved) saved.page = JSON.parse(JSON.stringify(page));
    this.deliver(report);
  }

  /**
   * A report to keep and hand to the app's listeners.
   * @param {Report} report
   */
  deliver(report) {
    this.list.push(report);
    if (this.list.length > this.#parts.options.maxReports) this.list.shift();
    each(this.listeners, report);
    if (this.metricListeners.size && report.status !== 'failed' && report.error?.kind !== 'unread') {
      for (const m of metricsOf(/** @type {import('../report.js').StreamReport} */ (report))) each(this.metricListeners, m);
    }
  }
}
