// The demo app: a plain chat page that streams from the simulated server, as a real app would,
// with tokenpaint watching. The app's own code (reading the stream, rendering) knows nothing of
// tokenpaint except `profiler.fetch`.

import init, { Profiler } from '/js/index.js';

const $ = (id) => document.getElementById(id);
const messages = $('messages');

await init();
const profiler = new Profiler();
profiler.observe(messages);
profiler.onReport(showReport);
window.tokenpaintProfiler = profiler; // for the curious, and for the page tests

// --- the app: send a prompt, read the SSE stream, render tokens -----------------------------

$('ask').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('send').disabled = true;
  try {
    await ask($('prompt').value);
  } catch (e) {
    bubble('assistant').textContent = `Error: ${e.message}`;
  } finally {
    $('send').disabled = false;
  }
});

function bubble(role, text = '') {
  const div = document.createElement('div');
  div.className = `msg ${role}`;
  div.textContent = text;
  messages.append(div);
  messages.scrollTop = messages.scrollHeight;
  return div;
}

async function ask(prompt) {
  bubble('user', prompt);
  const out = bubble('assistant');
  const mode = $('render').value;
  const delay = Number($('delay').value) || 0;
  const res = await profiler.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'tokenpaint-sim',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: prompt }],
      sim: { ttft_ms: Number($('ttft').value), token_ms: Number($('tokenMs').value), tokens: Number($('tokens').value) },
    }),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  let buffered = '';
  const pending = [];
  for await (const data of sseData(res.body)) {
    if (data === '[DONE]') break;
    const text = JSON.parse(data).choices?.[0]?.delta?.content;
    if (!text) continue;
    if (mode === 'immediate') out.append(text);
    else if (mode === 'delay') pending.push(new Promise((r) => setTimeout(() => r(out.append(text)), delay)));
    else buffered += text;
  }
  if (mode === 'end') out.append(buffered);
  await Promise.all(pending);
}

/** The data of each server-sent event in a body. */
async function* sseData(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    const lines = buf.split(/\r\n|\r|\n/);
    buf = lines.pop();
    for (const line of lines) {
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
    }
  }
}

// --- showing the report --------------------------------------------------------------------

const ms = (v) => (v === null || v === undefined ? '—' : `${v.toFixed(v < 10 ? 1 : 0)} ms`);

function cell(id, value, text = ms(value)) {
  const el = $(id);
  el.textContent = text;
  el.dataset.value = value === null || value === undefined ? '' : String(value);
}

function showReport(r) {
  $('report').hidden = false;
  cell('ttft-measured', r.ttft);
  cell('ttft-perceived', r.ttftPerceived?.painted);
  cell('ttft-gap', gap(r.ttft, r.ttftPerceived?.painted));
  cell('e2e-measured', r.e2e);
  cell('e2e-perceived', r.e2ePerceived?.painted);
  cell('e2e-gap', gap(r.e2e, r.e2ePerceived?.painted));
  cell('lag', r.lag?.p50, r.lag ? `${ms(r.lag.p50)} / ${ms(r.lag.p95)} / ${ms(r.lag.max)}` : '—');
  cell('tpot', r.tpot);
  cell('itl', r.itl?.p50, r.itl ? `${ms(r.itl.p50)} / ${ms(r.itl.p95)} / ${ms(r.itl.max)}` : '—');
  cell('tokens-out', r.tokens, `${r.tokens} (${r.tokensSource})`);
  cell('backlog', r.backlogPeak, r.backlogPeak === null ? '—' : `${r.backlogPeak} chars`);
  cell('matched', r.matchedPct, r.matchedPct === null ? '—' : `${r.matchedPct.toFixed(1)} %`);
  $('report').dataset.reportId = String(r.id);
  drawChart(r);
  showSummary(profiler.summary());
}

function gap(a, b) {
  return a === null || b === null || b === undefined ? null : b - a;
}

function showSummary(s) {
  if (!s) return;
  $('runs').textContent = `(${s.count} streams)`;
  const rows = [
    ['TTFT measured', s.ttft],
    ['TTFT perceived', s.ttftPerceived],
    ['E2E measured', s.e2e],
    ['E2E perceived', s.e2ePerceived],
    ['TPOT', s.tpot],
    ['delivery lag', s.lag],
  ];
  $('summary').tBodies[0].replaceChildren(
    ...rows.map(([name, p]) => {
      const tr = document.createElement('tr');
      tr.innerHTML = `<th>${name}</th>`;
      for (const q of ['p50', 'p90', 'p95', 'p99']) {
        const td = document.createElement('td');
        td.textContent = ms(p[q]);
        tr.append(td);
      }
      return tr;
    }),
  );
}

$('export').addEventListener('click', () => {
  const blob = new Blob([JSON.stringify({ reports: profiler.reports(), summary: profiler.summary() }, null, 2)], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'tokenpaint-reports.json';
  a.click();
  URL.revokeObjectURL(a.href);
});

// Cumulative characters over time: arrived, committed, painted; the gap between arrived and
// painted (the backlog) is shaded.
function drawChart(r) {
  const canvas = $('chart');
  const dpr = window.devicePixelRatio || 1;
  const W = canvas.clientWidth || 640;
  const H = Math.round(W * 0.4);
  canvas.width = W * dpr;
  canvas.height = H * dpr;
  const g = canvas.getContext('2d');
  g.scale(dpr, dpr);
  g.clearRect(0, 0, W, H);
  const tl = r.timeline;
  if (!tl || !tl.arrived.length) return;
  const pad = { l: 44, r: 10, t: 10, b: 26 };
  const times = [...tl.arrived, ...tl.painted].filter((v) => v !== null);
  const tMax = Math.max(...times) * 1.02 || 1;
  const total = tl.chars.reduce((a, b) => a + b, 0) || 1;
  const x = (t) => pad.l + (t / tMax) * (W - pad.l - pad.r);
  const y = (c) => H - pad.b - (c / total) * (H - pad.t - pad.b);
  const series = (times) => {
    const pts = times.map((t, i) => [t, tl.chars[i]]).filter(([t]) => t !== null).sort((a, b) => a[0] - b[0]);
    let c = 0;
    return pts.map(([t, n]) => [t, (c += n)]);
  };
  const step = (pts, color, width) => {
    g.beginPath();
    g.strokeStyle = color;
    g.lineWidth = width;
    let prev = 0;
    g.moveTo(x(0), y(0));
    for (const [t, c] of pts) {
      g.lineTo(x(t), y(prev));
      g.lineTo(x(t), y(c));
      prev = c;
    }
    g.stroke();
  };
  const arrived = series(tl.arrived);
  const painted = series(tl.painted);
  // Backlog: fill between the arrived and painted step curves.
  g.fillStyle = getComputedStyle(document.documentElement).getPropertyValue('--backlog');
  g.beginPath();
  g.moveTo(x(0), y(0));
  let prev = 0;
  for (const [t, c] of arrived) {
    g.lineTo(x(t), y(prev));
    g.lineTo(x(t), y(c));
    prev = c;
  }
  g.lineTo(x(tMax), y(prev));
  prev = painted.length ? painted[painted.length - 1][1] : 0;
  g.lineTo(x(tMax), y(prev));
  for (let i = painted.length - 1; i >= 0; i--) {
    const [t, c] = painted[i];
    const before = i > 0 ? painted[i - 1][1] : 0;
    g.lineTo(x(t), y(c));
    g.lineTo(x(t), y(before));
  }
  g.lineTo(x(0), y(0));
  g.fill();
  const css = (v) => getComputedStyle(document.documentElement).getPropertyValue(v).trim();
  step(arrived, css('--arrived'), 2);
  step(series(tl.committed), css('--committed'), 1.5);
  step(painted, css('--painted'), 2);
  // Axes.
  g.strokeStyle = '#94a3b8';
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(pad.l, pad.t);
  g.lineTo(pad.l, H - pad.b);
  g.lineTo(W - pad.r, H - pad.b);
  g.stroke();
  g.fillStyle = '#475569';
  g.font = '11px system-ui, sans-serif';
  g.textAlign = 'center';
  const tick = niceStep(tMax / 6);
  for (let t = 0; t <= tMax; t += tick) g.fillText(`${Math.round(t)}`, x(t), H - pad.b + 14);
  g.fillText('ms from request start', (pad.l + W) / 2, H - 2);
  g.textAlign = 'right';
  g.fillText(String(total), pad.l - 4, y(total) + 4);
  g.fillText('0', pad.l - 4, y(0));
  g.save();
  g.translate(11, (H - pad.b) / 2);
  g.rotate(-Math.PI / 2);
  g.textAlign = 'center';
  g.fillText('characters', 0, 0);
  g.restore();
}

function niceStep(raw) {
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}
