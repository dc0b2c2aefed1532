// Generated from src/words.json by scripts/words.mjs: do not edit.
// Each call into the core that takes many arguments, as a function of one record: the shell
// names every argument, and only this file knows the order the core takes them in.

/** @typedef {import('../../pkg/tokenpaint_core.js').Core} Core */

/**
 * `Core.open`'s arguments.
 * @typedef {object} OpenArgs
 * @property {string} format the `format` option's value (`auto`: detect it)
 * @property {string} [contentType] the response's Content-Type (left out: none)
 * @property {string} [headers] the response headers the core reads, `name: value` lines with lower-case names (left out: none)
 * @property {string} url the request URL
 * @property {number} start the request's start (ms, performance.now())
 * @property {number} [headersAt] when the headers arrived (left out: no response came)
 * @property {number} [httpStatus] the HTTP status (left out: none)
 * @property {string} [label] its label (left out: none)
 * @property {string} [transport] what carried it (left out: `fetch`)
 * @property {string} [resumedFrom] the last event id an EventSource resumed from (left out: none)
 * @property {boolean} [keepText] keep its text (the `includeText` option; left out: no)
 * @property {boolean} [startUnknown] no request start can be known for it (left out: one can)
 * @property {number} [priorChars] the characters the observed element held before the answer (the conversation; left out or NaN: unknown)
 * @property {boolean} [learned] its answer is read by a reading the shell learned from the page, a hypothesis: below 99% of it found on screen, no figure is given from it (left out: no)
 */

/**
 * Opens a stream with what the shell knows of it: the core's id for it (never 0; 0 from the link when the core is not there).
 * @param {Core} c
 * @param {OpenArgs} a
 */
export const open = (c, a) => c.open(a.format, a.contentType || '', a.headers || '', a.url, a.start, /** @type {number} */ (a.headersAt), /** @type {number} */ (a.httpStatus), a.label || '', a.transport || '', a.resumedFrom || '', /** @type {boolean} */ (a.keepText), /** @type {boolean} */ (a.startUnknown), /** @type {number} */ (a.priorChars), /** @type {boolean} */ (a.learned));

/**
 * `Core.painted`'s arguments.
 * @typedef {object} PaintedArgs
 * @property {number} frame the frame's start
 * @property {number} cutoff its rendering cutoff (NaN when the engine gives none)
 * @property {number} after its after-paint time
 * @property {number} since the frame before's after-paint time when the clock asked for this one then (NaN when it did not)
 */

/**
 * A frame painted: how many tokens got a paint bracket.
 * @param {Core} c
 * @param {PaintedArgs} a
 */
export const painted = (c, a) => c.painted(a.frame, a.cutoff, a.after, a.since);

/**
 * `Core.painted_one`'s arguments.
 * @typedef {object} PaintedOneArgs
 * @property {number} id the stream's id
 * @property {number} frame the frame's start
 * @property {number} cutoff its rendering cutoff (NaN when the engine gives none)
 * @property {number} after its after-paint time
 */

/**
 * A frame painted before a stream opened, for it alone: how many tokens got a paint bracket.
 * @param {Core} c
 * @param {PaintedOneArgs} a
 */
export const paintedOne = (c, a) => c.painted_one(a.id, a.frame, a.cutoff, a.after);
