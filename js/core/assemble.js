// A report's assembly from the core's: what the shell adds to it, from what the page told
// (`PageParts`). One place, for the live report (reports.js) and for a saved timeline analysed
// again (js/analyse.js), so that both give the same report.

import { withFixes } from '../verdicts.js';
import { expandFrames, ownBy } from '../browser/longframes.js';

/** @typedef {import('../report.js').StreamReport} StreamReport */
/** @typedef {import('../report.js').FailedReport} FailedReport */
/** @typedef {import('../report.js').ShownIn} ShownIn */
/** @typedef {import('../report.js').ReadBy} ReadBy */
/** @typedef {import('../report.js').StartBy} StartBy */

/**
 * What the page told of a stream that the core does not keep: the browser's own strings and
 * the shell's findings. A saved timeline carries them (`saved.page`).
 * @typedef {object} PageParts
 * @property {number} sampleRate the share of page loads profiled
 * @property {import('../browser/longframes.js').Kept[]} scripts the scripts of the late frames, by number
 * @property {boolean} longFrames the engine reports long animation frames
 * @property {string | null} ownRoot where tokenpaint's own scripts were served from (never named)
 * @property {{ protocol: string | null, serverTiming: import('../report.js').ServerTimingEntry[] } | null} entry the Resource Timing entry's strings
 * @property {ShownIn | null} element the element that showed the answer, as the watch found it
 * @property {ReadBy | null} read how the answer was read, and how it ended
 * @property {StartBy | null} [start] what the answer's start is, where the shell found it (answers.js)
 */

/**
 * The figures' part, before the exporters see the report: the sample rate, the verdicts' fixes
 * (the catalog's words for the core's fix ids), the late frames' scripts, the entry's strings.
 * @param {StreamReport} report the core's report (changed in place)
 * @param {PageParts} page
 */
export function assembleFigures(report, page) {
  // The share of page loads profiled, so that figures merged from many pages can be weighed.
  report.sampleRate = page.sampleRate;
  withFixes(report.diagnosis);
  // The core decided every figure; the shell only puts back the browser's own strings it kept.
  try {
    expandFrames(report, page.scripts || [], !!page.longFrames, ownBy(page.ownRoot ?? null));
    if (report.resourceTiming) Object.assign(report.resourceTiming, page.entry || { protocol: null, serverTiming: [] });
  } catch {
    /* the figures stand without them */
  }
}

/**
 * How the answer was shown and read: the element (a browser fact), and a reader of the core's
 * (its format), an app's reader in the shell (the format is the app's), or the path the shell
 * learned from the page.
 * @param {StreamReport | FailedReport} report (changed in place)
 * @param {PageParts} page
 */
export function assembleRead(report, page) {
  report.element = page.element || null;
  const read = page.read;
  if (read) report.format = read.by === 'learned' ? 'learned' : /** @type {StreamReport['format']} */ (read.format) || report.format;
  report.read = read || (report.format ? { by: 'reader', format: report.format } : null);
  // What the start is: the request, frame or submit that asked (answers.js), else the stream's
  // own request (or what stood in for it: the headers, Resource Timing).
  report.start = page.start || { by: report.startSource || 'unknown' };
}
