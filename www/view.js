// What the lab's views share: how a figure is written, the phases' colours, a canvas to draw on,
// and saving a file.

export const ms = (v) => (v === null || v === undefined || !Number.isFinite(v) ? '—' : `${v.toFixed(v < 10 ? 1 : 0)} ms`);

export const PHASE_COLORS = { queue: '#a855f7', prefill: '#6366f1', network: '#0ea5e9', decode: '#2563eb', intermediary: '#ef4444', client: '#16a34a', unattributed: '#cbd5e1' };

export function canvas(id, ratio) {
  const c = document.getElementById(id);
  const dpr = window.devicePixelRatio || 1;
  const W = c.clientWidth || 640;
  const H = Math.round(W * ratio);
  c.width = W * dpr;
  c.height = H * dpr;
  const g = c.getContext('2d');
  g.scale(dpr, dpr);
  g.clearRect(0, 0, W, H);
  return { g, W, H };
}

export function niceStep(raw) {
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

/** Saves `json` as a file named `name` (a download: nothing leaves the browser). */
export function saveJson(name, json) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
