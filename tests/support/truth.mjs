// The page's own truth of an answer, against which a report is held (issue 58): what the page
// showed after each DOM change (its text in letters and digits, read by a MutationObserver of the
// page's or the test's own, shadow roots included) and its after-paint marks (a frame loop's rAF
// posting a task: a change is painted at the first mark after it). Nothing here is tokenpaint's.
//
// Per record of the report (a delta as it arrived; a snapshot's new part), from the report's own
// arrival times and its text (`includeText: true`): the first change after the answer's start
// whose text holds the answer up to that record's end more often than the page did before the
// question (the first words may be elsewhere on the page too), and the mark after it.

export const letters = (s) => String(s).replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
const count = (text, part) => (part ? text.split(part).length - 1 : 0);

/**
 * @param {any} report a report with `text` and `timeline`
 * @param {{ changes: Array<{ t: number, text: string }>, marks: number[] }} page
 * @returns {{ firstText: number | null, firstPaint: number | null, lagP50: number | null, records: number, shown: number, commitDiff: number | null, commitWorst: { record: number, committed: number, page: number } | null }}
 *   times from the report's start; `commitDiff`: the largest difference between a record's commit
 *   in the report and the page's change that showed it
 */
export function truthOf(report, page) {
  const tl = report.timeline;
  const start = report.startTime;
  const text = typeof report.text === 'string' ? report.text : '';
  const changes = page.changes.map((c) => ({ ...c, painted: page.marks.find((m) => m > c.t) ?? null }));
  const before = changes.filter((c) => c.t < start).pop();
  const lags = [];
  let firstText = null;
  let firstPaint = null;
  let end = 0;
  let shown = 0;
  /** @type {number | null} */
  let commitDiff = null;
  /** @type {{ record: number, committed: number, page: number } | null} */
  let commitWorst = null;
  for (let i = 0; i < tl.arrived.length; i++) {
    end += tl.chars[i];
    const prefix = letters(text.slice(0, end));
    if (!prefix || tl.arrived[i] === null) continue;
    const was = count(before ? before.text : '', prefix);
    const c = changes.find((x) => x.t >= start && count(x.text, prefix) > was);
    if (!c) continue;
    shown++;
    const committed = tl.committed ? tl.committed[i] : null;
    if (typeof committed === 'number' && (commitDiff === null || Math.abs(start + committed - c.t) > commitDiff)) {
      commitDiff = Math.abs(start + committed - c.t);
      commitWorst = { record: i, committed, page: c.t - start };
    }
    if (firstText === null) {
      firstText = c.t - start;
      firstPaint = c.painted === null ? null : c.painted - start;
    }
    if (c.painted !== null) lags.push(c.painted - (start + tl.arrived[i]));
  }
  lags.sort((a, b) => a - b);
  const n = lags.length;
  const lagP50 = n ? (n % 2 ? lags[n >> 1] : (lags[n / 2 - 1] + lags[n / 2]) / 2) : null;
  return { firstText, firstPaint, lagP50, records: tl.arrived.length, shown, commitDiff, commitWorst };
}
