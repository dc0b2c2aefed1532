// The OTLP exporter's stand-in: the exporter itself (otlp.js) is a chunk of its own.

import { modelOf } from './model.js';
import { UNSENT } from './unsent.js';

/**
 * The OTLP exporter (`otlp.js`), imported only when the `otlp` option is set: bundlers make it a
 * chunk of its own, which pages without OTLP never download. Reports that end before it has
 * loaded are kept (up to 1,000) and handed over; a flush or close asked for meanwhile happens once
 * it is there. A page left before it has loaded cannot send them: they wait in the origin's
 * `localStorage` (at most 50), and its next page that exports to the same collector sends them.
 */
/** @typedef {NonNullable<import('../options.js').ProfilerOptions['otlp']>} OtlpOptions */
/** @typedef {import('../report.js').StreamReport} StreamReport */
/** @typedef {import('../core/stream.js').StreamOptions['trace']} Trace */
/** @typedef {{ add(report: StreamReport, trace: Trace): void, flush(): Promise<unknown> | undefined, close(): void }} Sink */

export class LazyExporter {
  /** @type {Sink | null} */
  #real;
  /** @type {typeof import('./otel.js') | null} */
  #otel;
  #closed;
  /** @type {Array<[StreamReport, Trace]>} */
  #pending;
  #options;
  #onHide;

  /** @param {OtlpOptions} options */
  constructor(options) {
    this.#options = options;
    this.#pending = [];
    this.#real = null;
    this.#otel = null;
    this.#closed = false;
    this.#onHide = () => this.#keep();
    if (typeof addEventListener === 'function') addEventListener('pagehide', this.#onHide);
    this.ready = import('./otlp.js')
      .then(({ sinkFor, otel, takeUnsent }) => {
        this.#otel = otel;
        // Neither a page SDK nor a URL: nothing to export to.
        this.#real = sinkFor(options) || { add() {}, flush: () => Promise.resolve(), close() {} };
        const left = takeUnsent(options.url);
        for (const [report, trace] of left) this.#real.add(report, trace);
        for (const [report, trace] of this.#pending.splice(0)) this.#real.add(report, trace);
        // What a left page could not send goes now, not with the next batch.
        if (left.length && !this.#closed) this.#real.flush();
        if (this.#closed) {
          this.#real.flush();
          this.#real.close();
        }
      })
      .catch(() => {});
  }

  /** On pagehide before the chunk has loaded: the pending reports, into the origin's storage
   * (at most 50, the newest). Full or blocked storage: nothing more can be done for a page
   * that is going. */
  #keep() {
    if (this.#real || !this.#pending.length || !this.#options.url) return;
    try {
      const kept = JSON.parse(localStorage.getItem(UNSENT) || '[]');
      for (const [report, trace] of this.#pending.splice(0)) kept.push({ url: String(this.#options.url), report, trace });
      localStorage.setItem(UNSENT, JSON.stringify(kept.slice(-50)));
    } catch {}
  }

  /**
   * A request leaving: its model and, for the URLs of `propagate`, trace context (otel.js). A
   * request made before the chunk has loaded (the first moments of the page) has no trace
   * context.
   */
  /**
   * @param {string} url
   * @param {unknown} body the request's body
   * @param {number} start
   * @returns {import('./otel.js').Trace | null}
   */
  begin(url, body, start) {
    if (this.#otel) return this.#otel.begin(this.#options, url, body, start);
    // The requested model (gen_ai.request.model) is read from the body all the same.
    const model = modelOf(body);
    return model ? { model } : null;
  }

  /**
   * `input` and `init` with `headers` added (once the chunk has loaded: a request with trace
   * context was begun by it).
   * @param {RequestInfo | URL} input
   * @param {RequestInit | undefined} init
   * @param {Record<string, string>} headers
   */
  withHeaders(input, init, headers) {
    return /** @type {typeof import('./otel.js')} */ (this.#otel).withHeaders(input, init, headers);
  }

  /**
   * @param {StreamReport} report
   * @param {Trace} trace
   */
  add(report, trace) {
    if (this.#real) this.#real.add(report, trace);
    else if (this.#pending.length < 1000) this.#pending.push([report, trace]);
  }

  flush() {
    if (this.#real) return this.#real.flush();
    // Not loaded yet: the flush happens on load (or, once closed, as the load closes it).
    return this.ready.then(() => (this.#real && !this.#closed ? this.#real.flush() : undefined));
  }

  close() {
    if (this.#closed) return;
    this.#closed = true;
    if (typeof removeEventListener === 'function') removeEventListener('pagehide', this.#onHide);
    if (this.#real) this.#real.close();
  }
}
