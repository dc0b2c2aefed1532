// tokenpaint/overlay: a floating panel for development that shows the current answer live (a
// backlog sparkline, measured against perceived TTFT, lag), then its verdict and fix.
//
//   import { overlay } from 'tokenpaint/overlay';
//   overlay(profiler); // Alt+Shift+T hides and shows it
//
// It lives in a closed shadow root: the app's styles never reach it, its own never leak out, and
// tokenpaint never reads its text as the app's (it is not in any element's textContent). Its
// styles are a constructable stylesheet and it sets no inline style, so it works under a strict
// Content-Security-Policy. It imports nothing: a page that does not import it pays nothing.

const CSS = `:host{all:initial;position:fixed;right:12px;bottom:12px;z-index:2147483647}
.p{font:12px/1.4 system-ui,sans-serif;color:#0f172a;background:#fff;border:1px solid #cbd5e1;border-radius:8px;box-shadow:0 4px 16px #0003;padding:8px 10px;width:240px}
.p[hidden]{display:none}
h2{font-size:12px;margin:0 0 4px;font-weight:600}
small{color:#64748b;font-weight:400}
dl{display:grid;grid-template-columns:auto 1fr;gap:0 8px;margin:0}
dt{color:#64748b}
dd{margin:0;text-align:right;font-variant-numeric:tabular-nums}
canvas{width:100%;height:32px;display:block;margin:6px 0 0}
.v{margin:6px 0 0;font-weight:600}
.v:empty,.f:empty{display:none}
.f{margin:2px 0 0;color:#475569}`;

const ROWS = [
  ['ttft', 'TTFT measured'],
  ['ttftPerceived', 'TTFT perceived'],
  ['lag', 'lag (last token; p50 at the end)'],
  ['backlog', 'backlog'],
  ['matched', 'matched'],
];

const fmt = (/** @type {string} */ k, /** @type {number | null | undefined} */ v) => (v === null || v === undefined ? '–' : k === 'backlog' ? `${v} chars` : k === 'matched' ? `${v}%` : `${Math.round(v)} ms`);

/**
 * Shows the panel for `profiler` (a tokenpaint Profiler). Options: `key` (with Alt+Shift, default
 * `T`) and `hidden` (start hidden). Returns `{ toggle(), close(), root }`; `root` is the panel's
 * shadow root, for tests and tools.
 * @param {import('./index.js').Profiler} profiler
 * @param {import('./overlay.js').OverlayOptions} [options]
 * @returns {import('./overlay.js').Overlay}
 */
export function overlay(profiler, options = {}) {
  const none = { toggle() {}, close() {}, note() {}, root: null };
  if (typeof document === 'undefined' || !profiler || typeof profiler.onProgress !== 'function') return none;
  try {
    const key = String(options.key || 'T').toUpperCase();
    const host = document.createElement('div');
    host.dataset.tokenpaintOverlay = '';
    const root = host.attachShadow({ mode: 'closed' });
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      root.adoptedStyleSheets = [sheet];
    } catch {
      /* no constructable stylesheets: unstyled, never inline */
    }
    /**
     * @template {keyof HTMLElementTagNameMap} K
     * @param {K} tag
     * @param {string} [cls]
     * @param {string} [text]
     */
    const make = (tag, cls, text) => {
      const e = document.createElement(tag);
      if (cls) e.className = cls;
      if (text) e.textContent = text;
      return e;
    };
    const panel = make('div', 'p');
    panel.hidden = !!options.hidden;
    const title = make('h2', '', 'tokenpaint ');
    const status = make('small', '', 'waiting for an answer');
    title.append(status);
    const dl = make('dl');
    /** @type {Record<string, HTMLElement>} */
    const cells = {};
    for (const [k, label] of ROWS) {
      cells[k] = make('dd', '', '–');
      cells[k].dataset.k = k;
      dl.append(make('dt', '', label), cells[k]);
    }
    const spark = make('canvas');
    spark.width = 240;
    spark.height = 32;
    const verdict = make('p', 'v');
    const fix = make('p', 'f');
    panel.append(title, dl, spark, verdict, fix);
    root.append(panel);

    /** @type {number | null} */
    let current = null;
    /** @type {number[]} */
    const backlog = [];
    const draw = () => {
      const g = spark.getContext && spark.getContext('2d');
      if (!g) return;
      g.clearRect(0, 0, spark.width, spark.height);
      const max = Math.max(1, ...backlog);
      g.strokeStyle = '#ef4444';
      g.lineWidth = 1.5;
      g.beginPath();
      backlog.forEach((b, i) => {
        const x = (i / Math.max(1, backlog.length - 1)) * (spark.width - 2) + 1;
        const y = spark.height - 2 - (b / max) * (spark.height - 4);
        if (i) g.lineTo(x, y);
        else g.moveTo(x, y);
      });
      g.stroke();
    };
    const show = (/** @type {Record<string, any>} */ figures) => {
      for (const [k] of ROWS) if (k in figures) cells[k].textContent = fmt(k, figures[k]);
    };
    const offProgress = profiler.onProgress((p) => {
      if (p.id !== current) {
        current = p.id;
        backlog.length = 0;
        verdict.textContent = '';
        fix.textContent = '';
      }
      status.textContent = p.ended ? 'settling' : 'streaming';
      if (p.backlog !== null) backlog.push(p.backlog);
      if (backlog.length > 240) backlog.shift();
      show(p);
      draw();
    });
    const offReport = profiler.onReport((r) => {
      // An answer on the page that no stream seen carried: said so, not "0 tokens".
      status.textContent = r.read && r.read.by === 'none' ? "cannot read this app's stream" : `${r.status}, ${r.tokens ?? '?'} tokens`;
      show({ ttft: r.ttft, ttftPerceived: r.ttftPerceived && r.ttftPerceived.painted, lag: r.lag && r.lag.p50, matched: r.matchedPct });
      const v = r.diagnosis && r.diagnosis[0];
      verdict.textContent = v ? v.verdict : '';
      fix.textContent = (v && v.fix) || '';
    });
    const onKey = (/** @type {KeyboardEvent} */ e) => {
      if (e.altKey && e.shiftKey && (String(e.key).toUpperCase() === key || e.code === `Key${key}`)) panel.hidden = !panel.hidden;
    };
    addEventListener('keydown', onKey);
    document.body.append(host);
    return {
      root,
      /** @param {string} text */
      note(text) {
        status.textContent = String(text);
      },
      toggle() {
        panel.hidden = !panel.hidden;
      },
      close() {
        offProgress();
        offReport();
        removeEventListener('keydown', onKey);
        host.remove();
      },
    };
  } catch {
    return none;
  }
}
