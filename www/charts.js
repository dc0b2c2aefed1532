// The report's charts: the gaps between arrivals, the live view while an answer streams, and
// arrived, committed and painted characters over time.

import { $ } from '/www/lab.js';
import { ms, canvas, niceStep } from '/www/view.js';

export function drawHistogram(r) {
  const { g, W, H } = canvas('histogram', 0.18);
  const a = r.timeline?.arrived || [];
  const gaps = a.slice(1).map((t, i) => t - a[i]).filter((x) => x !== null && Number.isFinite(x));
  if (!gaps.length) return;
  const max = Math.max(...gaps, 1);
  const bins = 30;
  const counts = new Array(bins).fill(0);
  for (const x of gaps) counts[Math.min(bins - 1, Math.floor((x / max) * bins))]++;
  const top = Math.max(...counts);
  const bw = (W - 40) / bins;
  g.fillStyle = '#2563eb';
  counts.forEach((c, i) => g.fillRect(30 + i * bw, H - 18 - ((H - 28) * c) / top, bw - 2, ((H - 28) * c) / top));
  g.fillStyle = '#475569';
  g.font = '11px system-ui, sans-serif';
  g.fillText('0', 30, H - 4);
  g.textAlign = 'right';
  g.fillText(`${Math.round(max)} ms`, W - 10, H - 4);
}

// The chart while the answer streams: arrived and painted so far, the backlog between them.
let liveColors = null;
export function drawLive(points, p) {
  $('live').hidden = false;
  $('liveStatus').textContent = `${p.arrived} characters arrived, ${p.painted} painted, backlog ${p.backlog}${p.lag === null ? '' : `, lag ${ms(p.lag)}`}`;
  const { g, W, H } = canvas('liveChart', 0.3);
  $('liveChart').dataset.livePoints = String(points.length);
  const pad = { l: 44, r: 10, t: 10, b: 20 };
  const tMax = Math.max(1000, points[points.length - 1][0] * 1.1);
  const top = Math.max(1, ...points.map((q) => q[1])) * 1.1;
  const x = (t) => pad.l + (t / tMax) * (W - pad.l - pad.r);
  const y = (c) => H - pad.b - (c / top) * (H - pad.t - pad.b);
  if (!liveColors) {
    const cs = getComputedStyle(document.documentElement);
    liveColors = Object.fromEntries(['--backlog', '--arrived', '--painted'].map((v) => [v, cs.getPropertyValue(v).trim()]));
  }
  g.fillStyle = liveColors['--backlog'];
  g.beginPath();
  g.moveTo(x(points[0][0]), y(points[0][1]));
  for (const [t, a] of points) g.lineTo(x(t), y(a));
  for (let i = points.length - 1; i >= 0; i--) g.lineTo(x(points[i][0]), y(points[i][2]));
  g.fill();
  for (const [k, color] of [[1, '--arrived'], [2, '--painted']]) {
    g.beginPath();
    g.strokeStyle = liveColors[color];
    g.lineWidth = 2;
    points.forEach((q, i) => (i ? g.lineTo(x(q[0]), y(q[k])) : g.moveTo(x(q[0]), y(q[k]))));
    g.stroke();
  }
}

// Cumulative characters over time: arrived, committed, painted; the gap between arrived and
// painted (the backlog) is shaded; stalls are marked.
export function drawChart(r) {
  const { g, W, H } = canvas('chart', 0.4);
  const tl = r.timeline;
  if (!tl || !tl.arrived.length) return;
  const pad = { l: 44, r: 10, t: 10, b: 26 };
  const times = [...tl.arrived, ...tl.painted].filter((v) => v !== null);
  const tMax = Math.max(...times) * 1.02 || 1;
  const total = tl.chars.reduce((a, b) => a + b, 0) || 1;
  const x = (t) => pad.l + (t / tMax) * (W - pad.l - pad.r);
  const y = (c) => H - pad.b - (c / total) * (H - pad.t - pad.b);
  const series = (ts) => {
    const pts = ts.map((t, i) => [t, tl.chars[i]]).filter(([t]) => t !== null).sort((a, b) => a[0] - b[0]);
    let c = 0;
    return pts.map(([t, n]) => [t, (c += n)]);
  };
  const css = (v) => getComputedStyle(document.documentElement).getPropertyValue(v).trim();
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
  g.fillStyle = css('--backlog');
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
    g.lineTo(x(t), y(c));
    g.lineTo(x(t), y(i > 0 ? painted[i - 1][1] : 0));
  }
  g.lineTo(x(0), y(0));
  g.fill();
  for (const [s, e] of r.stalls?.list || []) {
    g.fillStyle = css('--stall');
    g.fillRect(x(s), H - pad.b - 6, Math.max(2, x(e) - x(s)), 6);
  }
  step(arrived, css('--arrived'), 2);
  step(series(tl.committed), css('--committed'), 1.5);
  step(painted, css('--painted'), 2);
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
}
