// tokenpaint/trace: reports as a trace for Perfetto UI and the Chrome Performance panel, in the
// Trace Event Format (JSON object form: `{ traceEvents, displayTimeUnit }`, times in µs).
//
//   import { traceOf } from 'tokenpaint/trace';
//   const blob = new Blob([JSON.stringify(traceOf(profiler.reports()))]); // open it in ui.perfetto.dev
//
// One track (a thread of the process "tokenpaint") per stream, named by its report id and URL:
// - the stream, a complete event (`X`) from the request start over its E2E, with its verdict;
// - its phases end to end under it (queue, prefill, network, decode, intermediary, client), each
//   an `X` of the known length (an unknown phase is left out, never drawn as zero);
// - its stalls, `X` events named `stall`;
// - the first token's arrival, commit and paint, instant events (`i`);
// - counters (`C`) of the characters arrived, committed and painted, one point per record.
// Times are the page's (`performance.now()` plus the report's times from its start), so that
// several streams of one page line up. Pure: it runs in a page or in Node, and imports nothing.

const PID = 1;
const us = (/** @type {number} */ ms) => Math.round(ms * 1000);
/**
 * @param {unknown} v
 * @returns {v is number}
 */
function finite(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

/** @typedef {import('./report.js').StreamReport} StreamReport */

/**
 * The trace of `reports` (a report, or an array of them): `{ traceEvents, displayTimeUnit, otherData }`.
 * @param {StreamReport | StreamReport[]} reports
 */
export function traceOf(reports) {
  const list = (Array.isArray(reports) ? reports : [reports]).filter((r) => r && typeof r === 'object');
  /** @type {object[]} */
  const events = [{ name: 'process_name', ph: 'M', pid: PID, tid: 0, args: { name: 'tokenpaint' } }];
  list.forEach((r, i) => streamEvents(r, i + 1, events));
  return { traceEvents: events, displayTimeUnit: 'ms', otherData: { source: 'tokenpaint', streams: list.length } };
}

/**
 * @param {StreamReport} r
 * @param {number} tid
 * @param {object[]} out
 */
function streamEvents(r, tid, out) {
  const base = { pid: PID, tid };
  out.push({ ...base, name: 'thread_name', ph: 'M', args: { name: `stream ${r.id} ${r.url || ''}`.trim() } });
  out.push({ ...base, name: 'thread_sort_index', ph: 'M', args: { sort_index: tid } });
  if (!finite(r.startTime)) return; // a failed report: no times to place
  const at = (/** @type {number} */ ms) => us(r.startTime + ms);
  const verdict = r.diagnosis && r.diagnosis[0] ? r.diagnosis[0].verdict : null;
  const painted = r.e2ePerceived && r.e2ePerceived.painted;
  const end = finite(painted) ? painted : finite(r.e2e) ? r.e2e : null;
  if (end !== null) {
    out.push({ ...base, name: `stream ${r.id}`, cat: 'stream', ph: 'X', ts: at(0), dur: us(end), args: { url: r.url, status: r.status, verdict, ttft: r.ttft, ttftPerceived: r.ttftPerceived && r.ttftPerceived.painted, e2e: r.e2e, matchedPct: r.matchedPct } });
  }
  let t = 0;
  for (const p of r.phases || []) {
    if (!finite(p.ms)) continue;
    out.push({ ...base, name: p.name, cat: 'phase', ph: 'X', ts: at(t), dur: us(Math.max(0, p.ms)), args: { source: p.source } });
    t += Math.max(0, p.ms);
  }
  for (const [s, e] of (r.stalls && r.stalls.list) || []) {
    if (finite(s) && finite(e)) out.push({ ...base, name: 'stall', cat: 'stall', ph: 'X', ts: at(s), dur: us(e - s), args: { ms: e - s } });
  }
  const tl = r.timeline;
  if (!tl || !Array.isArray(tl.arrived)) return;
  const first = (/** @type {Array<number | null> | null | undefined} */ a) => (a || []).find(finite);
  for (const [name, v] of [
    ['first token arrived', first(tl.arrived)],
    ['first token committed', first(tl.committed)],
    ['first token painted', first(tl.painted)],
  ]) {
    if (finite(v)) out.push({ ...base, name, cat: 'token', ph: 'i', s: 't', ts: at(v) });
  }
  for (const key of ['arrived', 'committed', 'painted']) {
    const times = tl[/** @type {'arrived' | 'committed' | 'painted'} */ (key)] || [];
    /** @type {Array<[number, number]>} */
    const points = [];
    let chars = 0;
    for (let i = 0; i < times.length; i++) {
      chars += tl.chars[i] || 0;
      const v = times[i];
      if (finite(v)) points.push([v, chars]);
    }
    // A counter's value holds until its next point: in time order, the last of equal times.
    points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [ms, n] of points) out.push({ ...base, name: `chars ${key} (stream ${r.id})`, cat: 'chars', ph: 'C', ts: at(ms), args: { [key]: n } });
  }
}
