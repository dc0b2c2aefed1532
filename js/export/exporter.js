// The OTLP exporter's stand-in: the exporter itself (otlp.js) is a chunk of its own.

import { modelOf } from './model.js';

/**
 * The OTLP exporter (`otlp.js`), imported only when the `otlp` option is set: bundlers make it a
 * chunk of its own, which pages without OTLP never download. Reports that end before it has
 * loaded are kept (up to 1,000) and handed over; a flush or close asked for meanwhile happens once
 * it is there.
 */
export class LazyExporter {
  #real;
  #otel;
  #closed;
  #pending;
  #options;

  constructor(options) {
    this.#options = options;
    this.#pending = [];
    this.#real = null;
    this.#otel = null;
    this.#closed = false;
    this.ready = import('./otlp.js')
      .then(({ sinkFor, otel }) => {
        this.#otel = otel;
        // Neither a page SDK nor a URL: nothing to export to.
        this.#real = sinkFor(options) || { add() {}, flush: () => Promise.resolve(), close() {} };
        for (const [report, trace] of this.#pending.splice(0)) this.#real.add(report, trace);
        if (this.#closed) {
          this.#real.flush();
          this.#real.close();
        }
      })
      .catch(() => {});
  }

  /**
   * A request leaving: its model and, for the URLs of `propagate`, trace context (otel.js). A
   * request made before the chunk has loaded (the first moments of the page) has no trace
   * context.
   */
  begin(url, body, start) {
    if (this.#otel) return this.#otel.begin(this.#options, url, body, start);
    // The requested model (gen_ai.request.model) is read from the body all the same.
    const model = modelOf(body);
    return model ? { model } : null;
  }

  withHeaders(input, init, headers) {
    return this.#otel.withHeaders(input, init, headers);
  }

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
    if (this.#real) this.#real.close();
  }
}
