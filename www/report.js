// Showing a report: the measured and perceived figures side by side, the diagnosis with each
// fix's estimated gain, the phases, the first token's path, the charts, and the summary.

import { $, profiler, state } from '/www/lab.js';
import { TITLES as VERDICTS } from '/js/verdicts.js';
import { SCENARIOS } from '/www/scenarios.js';
import { ms, PHASE_COLORS } from '/www/view.js';
import { drawChart, drawHistogram } from '/www/charts.js';

function cell(id, value, text = ms(value)) {
  const el = $(id);
  el.textContent = text;
  el.dataset.value = value === null || value === undefined ? '' : String(value);
}

export function showReport(r, viewed = null) {
  $('live').hidden = true;
  $('report').hidden = false;
  $('report').dataset.source = viewed ? 'file' : 'live';
  $('scenarioName').textContent = viewed ? viewed.name : SCENARIOS[state.scenario].label;
  $('report').dataset.reportId = String(r.id);
  $('report').dataset.verdict = r.diagnosis?.[0]?.verdict ?? '';
  cell('ttft-measured', r.ttft);
  cell('ttft-perceived', r.ttftPerceived?.painted);
  cell('ttft-gap', gap(r.ttft, r.ttftPerceived?.painted));
  cell('e2e-measured', r.e2e);
  cell('e2e-perceived', r.e2ePerceived?.painted);
  cell('e2e-gap', gap(r.e2e, r.e2ePerceived?.painted));
  cell('lag', r.lag?.p50, r.lag ? `${ms(r.lag.p50)} / ${ms(r.lag.p95)} / ${ms(r.lag.max)}` : '—');
  // Held arrivals: TPOT and ITL are the buffer's pace (or the busy page's reads), not the speed
  // of generation; the server's own step is beside them when it said it.
  const pace = r.pace && r.pace.of !== 'arrivals' ? ` (${r.pace.of === 'buffer' ? "the buffer's pace" : "the page's late reads"}${r.pace.serverStepMs !== null ? `; server step ${ms(r.pace.serverStepMs)}` : ''})` : '';
  cell('tpot', r.tpot, r.tpot === null ? '—' : ms(r.tpot) + pace);
  cell('itl', r.itl?.p50, r.itl ? `${ms(r.itl.p50)} / ${ms(r.itl.p95)} / ${ms(r.itl.max)}${pace}` : '—');
  $('tpot').dataset.pace = r.pace?.of ?? '';
  cell('tokens-out', r.tokens, `${r.tokens} (${r.tokensSource})`);
  const d = r.delivery;
  cell('delivery', null, d ? d.pattern + (d.interval ? ` every ${ms(d.interval)}` : '') + (d.rate ? ` at ${Math.round(d.rate)} chars/s` : '') : '—');
  cell('matched', r.matchedPct, r.matchedPct === null ? '—' : `${r.matchedPct.toFixed(1)} %`);
  showDiagnosis($('diagnosis'), r.diagnosis || []);
  drawWaterfall(r);
  drawFirstToken(r);
  drawChart(r);
  drawHistogram(r);
  showSummary(viewed ? viewed.summary : profiler.summary());
}

function gap(a, b) {
  return a === null || b === null || b === undefined ? null : b - a;
}

// How each gain is estimated (docs/diagnosis.md).
const GAIN_BASIS = {
  'paint-on-arrival': 'each delta painted in the frame after it arrived',
  'paint-on-arrival-server-pace': 'each delta read at the server’s pace and painted in the next frame',
  'paint-on-arrival-stream-pace': 'each delta read at the pace the stream kept before the page fell behind, and painted in the next frame',
  'no-hold': 'nothing between server and page holds tokens',
  'stall-at-pace': 'the stalled step at the stream’s usual pace',
  'no-queue': 'no wait for a server slot',
  'sent-at-once': 'the request sent without waiting in the browser',
  'without-earlier-text': 'the earlier messages left out of each re-render',
  'at-threshold': 'the phase brought down to where the verdict is no longer given',
};

/** The summary's fixes, worth most first: perceived time gained over all streams. */
function showGains(list, gains) {
  list.replaceChildren(
    ...gains.map((g) => {
      const li = document.createElement('li');
      li.dataset.verdict = g.verdict;
      li.textContent = `${VERDICTS[g.verdict] || g.verdict}: ${g.streams} stream${g.streams === 1 ? '' : 's'}, first text ${ms(g.ttftPerceived)} and whole answers ${ms(g.e2ePerceived)} sooner in all`;
      return li;
    }),
  );
}

export function showDiagnosis(list, verdicts) {
  list.replaceChildren(
    ...verdicts.map((v) => {
      const li = document.createElement('li');
      li.dataset.verdict = v.verdict;
      li.className = v.verdict === 'healthy' ? 'ok' : 'bad';
      const ev = Object.entries(v.evidence || {})
        .filter(([, x]) => x !== null)
        .map(([k, x]) => `${k} ${Math.round(x * 10) / 10}`)
        .join(' · ');
      li.innerHTML = '<strong></strong><p class="fix"></p><p class="gain"></p><p class="evidence"></p>';
      li.querySelector('strong').textContent = VERDICTS[v.verdict] || v.verdict;
      li.querySelector('.fix').textContent = v.fix;
      const g = li.querySelector('.gain');
      if (v.gain) {
        g.dataset.ttft = String(v.gain.ttftPerceived);
        g.dataset.e2e = String(v.gain.e2ePerceived);
        const basis = GAIN_BASIS[v.gain.basis] || v.gain.basis;
        // No zeros shown as a gain (issue 59): a hold that moves neither the first text nor the
        // end (the server's layer releasing at its end what it held) is said so.
        const none = !(v.gain.ttftPerceived >= 0.05) && !(v.gain.e2ePerceived >= 0.05);
        g.textContent = none
          ? `Fixed, neither the first text nor the end of the answer would come sooner (an estimate: ${basis}): the text in between would show as it comes.`
          : `Fixed, the user would see the first text ${ms(v.gain.ttftPerceived)} sooner and the whole answer ${ms(v.gain.e2ePerceived)} sooner (an estimate: ${basis}).`;
      } else g.remove();
      li.querySelector('.evidence').textContent = ev;
      return li;
    }),
  );
}

function drawWaterfall(r) {
  const el = $('waterfall');
  el.replaceChildren();
  if (!r.phases) return;
  const total = r.phasesTotal.ms || 1;
  const parts = [...r.phases.map((p) => ({ ...p })), { name: 'unattributed', ms: Math.max(0, r.phasesTotal.unattributed), source: 'derived' }];
  const bar = document.createElement('div');
  bar.className = 'bar';
  const legend = document.createElement('ul');
  for (const p of parts) {
    const li = document.createElement('li');
    li.innerHTML = `<span class="swatch" style="background:${PHASE_COLORS[p.name]}"></span><b>${p.name}</b> ${p.ms === null ? 'unknown' : ms(p.ms)} <small>${p.source ?? ''}</small>`;
    legend.append(li);
    if (!p.ms || p.ms <= 0) continue;
    const seg = document.createElement('span');
    seg.style.width = `${(100 * p.ms) / total}%`;
    seg.style.background = PHASE_COLORS[p.name];
    seg.title = `${p.name}: ${ms(p.ms)} (${p.source})`;
    bar.append(seg);
  }
  el.append(bar, legend);
  // Buffering delays the first tokens, not the last: the E2E bar cannot show it, so say it.
  // Only what was measured: a bunched pattern with no hold is the page reading late (its main
  // thread busy), or nothing to say (issue 59: "held … 0.0 ms, 0.0 ms on average").
  const i = r.intermediary;
  const note = document.createElement('p');
  note.className = 'held';
  if (i && i.pattern !== 'steady' && (i.heldFirstMs > 0 || i.heldMeanMs > 0)) {
    note.textContent = `An intermediary held tokens (${i.pattern}): the first one ${ms(i.heldFirstMs)}, ${ms(i.heldMeanMs)} on average. That is time to first token the user waited for, even though the end of the answer was not late.`;
  } else if (i && i.pattern !== 'steady' && i.lateReadMs > 0) {
    note.textContent = `The page read the tokens late (${i.pattern}): ${ms(i.lateReadMs)} on average after they reached the browser, its main thread busy. That is the page's time, not an intermediary's.`;
  }
  if (note.textContent) el.append(note);
}

// The first token's path, to the moment it was painted, as the report splits it
// (firstToken): queue and prefill (the server's figures), the rest of the way until it arrived,
// reasoning before the answer, what an intermediary held it, and the page. Buffering shows here:
// it delays the first tokens, not the last.
function drawFirstToken(r) {
  const el = $('firstToken');
  el.replaceChildren();
  const f = r.firstToken;
  if (!f) return;
  const parts = [
    { name: 'queue', ms: f.queue },
    { name: 'prefill', ms: f.prefill },
    { name: 'network', ms: f.network, label: 'network and the rest' },
    ...(f.reasoning ? [{ name: 'decode', ms: f.reasoning, label: 'reasoning' }] : []),
    { name: 'intermediary', ms: f.intermediary, label: 'held by an intermediary' },
    { name: 'client', ms: f.client, label: 'page (arrived to painted)' },
    ...(f.unattributed ? [{ name: 'unattributed', ms: f.unattributed, label: 'not attributed' }] : []),
  ];
  const total = parts.reduce((n, p) => n + (p.ms || 0), 0) || 1;
  const bar = document.createElement('div');
  bar.className = 'bar';
  const legend = document.createElement('ul');
  for (const p of parts) {
    const li = document.createElement('li');
    li.dataset.name = p.name;
    li.dataset.ms = p.ms === null ? '' : String(p.ms);
    const sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = PHASE_COLORS[p.name];
    const b = document.createElement('b');
    b.textContent = p.label || p.name;
    li.append(sw, b, ` ${p.ms === null ? 'unknown' : ms(p.ms)}`);
    legend.append(li);
    if (!p.ms || p.ms <= 0) continue;
    const seg = document.createElement('span');
    seg.style.width = `${(100 * p.ms) / total}%`;
    seg.style.background = PHASE_COLORS[p.name];
    seg.title = `${p.label || p.name}: ${ms(p.ms)}`;
    bar.append(seg);
  }
  el.append(bar, legend);
}

export function showSummary(s) {
  if (!s) return;
  $('runs').textContent = `(${s.count} streams${s.goodput ? `, goodput ${Math.round(100 * s.goodput.share)}%` : ''})`;
  showDiagnosis($('summaryDiagnosis'), s.diagnosis || []);
  showGains($('summaryGains'), s.gains || []);
  const rows = [
    ['TTFT measured', s.ttft],
    ['TTFT perceived', s.ttftPerceived],
    ['E2E perceived', s.e2ePerceived],
    ['TPOT', s.tpot],
    ['delivery lag', s.lag],
    ['queue', s.queue],
    ['prefill', s.prefill],
    ['network', s.network],
    ['decode', s.decode],
    ['intermediary', s.intermediary],
    ['client', s.client],
    ['longest freeze', s.freeze],
    ['input (longest)', s.inputDuration],
    ['frames dropped', s.droppedFrames, (v) => (v === null || v === undefined ? '—' : String(Math.round(v)))],
  ].filter(([, p]) => p);
  $('summary').tBodies[0].replaceChildren(
    ...rows.map(([name, p, show = ms]) => {
      const tr = document.createElement('tr');
      tr.innerHTML = `<th>${name}</th>`;
      for (const q of ['p50', 'p90', 'p95', 'p99']) {
        const td = document.createElement('td');
        td.textContent = show(p[q]);
        if (name === 'TTFT measured') td.dataset.q = q;
        tr.append(td);
      }
      return tr;
    }),
  );
}
