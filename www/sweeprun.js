// The concurrency sweep on the page: at each level, the other streams come from the demo server
// (off this page, as a load generator makes them) while the page profiles its answers in turn.
// The figures, the table and the chart are www/sweep.js's.

import { $, profiler, state } from '/www/lab.js';
import { knobs } from '/www/scenarios.js';
import { ask, request } from '/www/chat.js';
import { canvas, PHASE_COLORS } from '/www/view.js';
import { levelStats, sweepRows, sweepSays, drawSweep } from '/www/sweep.js';

let sweeping = null;
$('runSweep').addEventListener('click', () => {
  runSweep().catch((e) => ($('sweepStatus').textContent = `The sweep stopped: ${e.message}`));
});
$('stopSweep').addEventListener('click', () => sweeping?.abort());

const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const o = await res.json();
  if (!res.ok) throw new Error(o.error || `HTTP ${res.status}`);
  return o;
};

/** The next report after the `before` first, within 30 s. */
async function nextReport(before) {
  for (let waited = 0; waited < 30000; waited += 50) {
    const all = profiler.reports();
    if (all.length > before) return all.at(-1);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no report came for an answer');
}

async function runSweep() {
  const clamp = (v, lo, hi, d) => Math.min(hi, Math.max(lo, Math.floor(Number(v)) || d));
  const cap = clamp($('sweepCap').value, 1, 64, 16);
  const answers = clamp($('sweepAnswers').value, 1, 20, 4);
  const levels = [...new Set($('sweepLevels').value.split(/[\s,]+/).map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n - 1 <= cap))].sort((a, b) => a - b);
  if (!levels.length) return ($('sweepStatus').textContent = `No level: give streams at once from 1 to ${cap + 1}.`);
  const own = $('useOwn').checked && $('baseUrl').value;
  const k = knobs();
  state.sweepShared = own ? null : { slots: k.slots || 4, batch: 0.1, metrics: 'llamacpp', pool: `sweep-${Date.now()}` };
  const ctrl = new AbortController();
  sweeping = ctrl;
  $('runSweep').disabled = true;
  $('stopSweep').disabled = false;
  $('sweepWhere').textContent = own ? `against ${$('baseUrl').value}` : `the built-in server, ${state.sweepShared.slots} slots`;
  const results = [];
  try {
    for (const level of levels) {
      if (ctrl.signal.aborted) break;
      $('sweepStatus').textContent = `${level} at once: starting ${level - 1} other streams…`;
      // The same request as the page's, sent by the demo server (to your server directly, not
      // through its proxy).
      const [url, init] = request('A background request of the concurrency sweep', { ...k, shared: state.sweepShared });
      const headers = { ...init.headers };
      const target = headers['x-target-url'] || url;
      delete headers['x-target-url'];
      const load = level > 1 ? await post('/load/start', { url: target, init: { method: init.method, headers, body: init.body }, concurrency: level - 1, cap }) : null;
      const entries = [];
      try {
        // Let the other streams take their places first.
        if (load) await new Promise((r) => setTimeout(r, 500));
        for (let i = 0; i < answers && !ctrl.signal.aborted; i++) {
          $('sweepStatus').textContent = `${level} at once: answer ${i + 1} of ${answers}…`;
          const before = profiler.reports().length;
          const out = await ask(`Answer ${i + 1} with ${level} streams at once`, true, ctrl.signal);
          const report = await nextReport(before);
          // An answer cut short by the stop button is not a level's figure.
          if (ctrl.signal.aborted) break;
          const wait = Number(out.dataset.slotWaitMs);
          // The slot as this page saw it: from its request's start to the server taking a slot
          // (one machine, one clock). The server's own wait starts when it took the request up.
          const seen = Number(out.dataset.slotTakenAt) - (performance.timeOrigin + report.startTime);
          entries.push({ report, truth: { queue: Number.isFinite(wait) ? wait : null, seen: Number.isFinite(seen) ? seen : null } });
        }
      } finally {
        if (load) await post('/load/stop', { id: load.id });
      }
      if (entries.length) results.push(levelStats(level, entries));
      showSweep(results);
    }
    $('sweepStatus').textContent = ctrl.signal.aborted ? `Stopped: ${results.length} levels done.` : `Done: ${results.length} levels.`;
  } finally {
    state.sweepShared = null;
    sweeping = null;
    $('runSweep').disabled = false;
    $('stopSweep').disabled = true;
  }
}

function showSweep(levels) {
  $('sweep').hidden = false;
  $('sweepSays').textContent = sweepSays(levels);
  const table = $('sweepTable');
  table.replaceChildren();
  sweepRows(levels).forEach((cells, i) => {
    const tr = table.insertRow();
    for (const c of cells) {
      const td = document.createElement(i === 0 ? 'th' : 'td');
      td.textContent = c;
      tr.append(td);
    }
  });
  const { g, W, H } = canvas('sweepChart', 0.38);
  drawSweep(g, W, H, levels, PHASE_COLORS);
  window.tokenpaintSweep = levels; // for the page tests
}
