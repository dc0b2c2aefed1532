// The viewer: saved reports, drawn as live ones are; the exports of the reports shown.

import { $, profiler } from '/www/lab.js';
import { Profiler } from '/js/index.js';
import { traceOf } from '/js/trace.js';
import { saveJson } from '/www/view.js';
import { showReport, showSummary } from '/www/report.js';

$('export').addEventListener('click', () => {
  const file = { tokenpaint: 'reports', version: 1, source: 'lab', exportedAt: new Date().toISOString(), reports: profiler.reports(), summaries: [profiler.exportSummary()] };
  saveJson('tokenpaint-reports.json', JSON.stringify(file, null, 2));
});

// The reports shown (those opened, or the live ones) as a trace: open it in ui.perfetto.dev or
// the Performance panel.
$('exportTrace').addEventListener('click', () => {
  const shown = $('report').dataset.source === 'file' ? viewed.reports.map((x) => x.r) : profiler.reports();
  saveJson('tokenpaint-trace.json', JSON.stringify(traceOf(shown)));
});

/**
 * The reports, saved timelines and exported summaries in a saved file's JSON: one report, an
 * array of them (`profiler.reports()`), an export of the lab, the extension or the Playwright
 * helper (`{ reports, summaries }`), a saved timeline or an array of them, or an exported summary
 * alone (`exportSummary()`'s text). A report that carries its saved timeline (`saveTimeline:
 * true`) is among the timelines: it is analysed again by this build.
 */
export function readSaved(text) {
  const isReport = (x) => x && typeof x === 'object' && 'diagnosis' in x && 'id' in x;
  const isTimeline = (x) => x && typeof x === 'object' && x.tokenpaint === 'timeline';
  const sort = (list) => ({
    reports: list.filter((x) => isReport(x) && !isTimeline(x.saved)),
    timelines: list.filter((x) => isTimeline(x) || (isReport(x) && isTimeline(x.saved))),
  });
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(v)) return v.every((x) => isReport(x) || isTimeline(x)) ? { ...sort(v), summaries: [] } : null;
  if (isReport(v) || isTimeline(v)) return { ...sort([v]), summaries: [] };
  if (v && Array.isArray(v.reports)) {
    const summaries = Array.isArray(v.summaries) ? v.summaries.filter((s) => typeof s === 'string') : [];
    return { ...sort(v.reports), summaries };
  }
  // An exported summary is itself JSON: a fresh profiler tells whether it reads.
  const p = new Profiler();
  const ok = p.mergeSummary(text);
  p.close();
  return ok ? { reports: [], timelines: [], summaries: [text] } : null;
}

const viewed = { reports: [], summary: null, name: '' };

/**
 * Opens saved files: their reports in the picker (saved timelines analysed again by this build,
 * in the analysis module, loaded then), their summaries merged, the last report drawn.
 */
async function openSaved(files) {
  const reports = [];
  const viewer = new Profiler();
  let merged = 0;
  let again = 0;
  let analyst = null;
  const bad = [];
  for (const f of files) {
    const got = readSaved(await f.text());
    if (!got) {
      bad.push(f.name);
      continue;
    }
    reports.push(...got.reports.map((r) => ({ r, file: f.name })));
    for (const t of got.timelines) {
      // The analysis module loads only when a file holds saved timelines.
      if (!analyst) analyst = await (await import('/js/analyse.js')).createAnalyst();
      const { report, error } = analyst.analyse(t);
      if (report) {
        // A report that carried its timeline: what the page's own build concluded, beside.
        const then = t.saved ? t.diagnosis?.[0]?.verdict ?? null : null;
        reports.push({ r: report, file: f.name, again: true, then });
        again++;
      } else bad.push(`${f.name} (${error})`);
    }
    for (const s of got.summaries) merged += viewer.mergeSummary(s) ? 1 : 0;
  }
  analyst?.close();
  viewed.reports = reports;
  // Percentiles across what was opened: the exported summaries, or else the reports themselves.
  viewed.summary = merged ? viewer.summary() : summaryOf(reports.map((x) => x.r));
  viewer.close();
  const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  $('openStatus').textContent = `${n(reports.length, 'report', 'reports')}${merged ? `, ${n(merged, 'summary', 'summaries')}` : ''}${bad.length ? `; not a tokenpaint file: ${bad.join(', ')}` : ''}`;
  $('openStatus').dataset.count = String(reports.length);
  $('openStatus').dataset.again = String(again);
  const pick = $('pick');
  pick.replaceChildren(
    ...reports.map(({ r, file }, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = `${i + 1}. ${r.diagnosis?.[0]?.verdict ?? r.status} (${file}, ${r.url || 'no URL'})`;
      return o;
    }),
  );
  $('pickLabel').hidden = reports.length < 2;
  if (reports.length) {
    pick.value = String(reports.length - 1);
    showViewed(reports.length - 1);
  } else if (viewed.summary) {
    $('report').hidden = false;
    showSummary(viewed.summary);
  }
}

function showViewed(i) {
  const x = viewed.reports[i];
  // A saved timeline's report is this build's analysis of it, not the one the page had.
  // When the verdict changed since, the page's own is named: the data gained from the newer build.
  const then = x && x.then && x.then !== x.r.diagnosis?.[0]?.verdict ? ` (the page's build said ${x.then})` : '';
  if (x) showReport(x.r, { name: `${x.file}, report ${i + 1} of ${viewed.reports.length}${x.again ? `, analysed again by this build${then}` : ''}`, summary: viewed.summary });
}

/** Percentiles across reports (nearest rank), in the summary's shape, for files without one. */
function summaryOf(reports) {
  if (!reports.length) return null;
  const q = (values, p) => {
    const v = values.filter(Number.isFinite).sort((a, b) => a - b);
    return v.length ? v[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)] : null;
  };
  const of = (f) => {
    const values = reports.map((r) => {
      try {
        return f(r);
      } catch {
        return null;
      }
    });
    return { p50: q(values, 0.5), p90: q(values, 0.9), p95: q(values, 0.95), p99: q(values, 0.99) };
  };
  const phase = (name) => of((r) => r.phases.find((p) => p.name === name).ms);
  return {
    count: reports.length,
    ttft: of((r) => r.ttft),
    ttftPerceived: of((r) => r.ttftPerceived.painted),
    e2ePerceived: of((r) => r.e2ePerceived.painted),
    tpot: of((r) => r.tpot),
    lag: of((r) => r.lag.p50),
    queue: phase('queue'),
    prefill: phase('prefill'),
    network: phase('network'),
    decode: phase('decode'),
    intermediary: phase('intermediary'),
    client: phase('client'),
    freeze: of((r) => (r.stalls ? (r.stalls.longest ?? 0) : null)),
    inputDuration: of((r) => r.input.durationMaxMs),
    droppedFrames: of((r) => r.frames.dropped),
    diagnosis: [],
    gains: [],
  };
}

$('open').addEventListener('change', (e) => e.target.files.length && openSaved([...e.target.files]));
$('pick').addEventListener('change', (e) => showViewed(Number(e.target.value)));
addEventListener('dragover', (e) => e.preventDefault());
addEventListener('drop', (e) => {
  if (!e.dataTransfer || !e.dataTransfer.files.length) return;
  e.preventDefault();
  openSaved([...e.dataTransfer.files]);
});
