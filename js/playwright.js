// tokenpaint/playwright: perceived latency in CI. For the real `@playwright/test` runner (Node):
//
//   import { test, expect as base } from '@playwright/test';
//   import { attach, budgets } from 'tokenpaint/playwright';
//   const expect = base.extend(budgets);
//
//   test('the answer feels fast', async ({ page }, testInfo) => {
//     const tp = await attach(page, { testInfo });   // before the page loads
//     await page.goto('/chat');
//     await page.click('text=Send');
//     expect(await tp.next()).toMeetBudget({ ttftPerceived: 800, lagP95: 250, forbid: ['client-render-bound'] });
//   });
//
// `attach` injects the same instrumentation as the browser extension before the page's own
// scripts (`page.addInitScript`): `instrument()`, `observe()` with no element, the overlay. The
// app is not changed. Each report is attached to the test (JSON, its chart as SVG, and a trace
// for Perfetto UI or the Chrome Performance panel), so it is in Playwright's HTML and JSON reports.
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { traceOf } from './trace.js';

// Background load for a spec (js/load.js): `const load = backgroundLoad({ url, init,
// concurrency: 8 })` before the page asks, `await load.stop()` after.
export { backgroundLoad } from './load.js';

const INJECT = fileURLToPath(new URL('../dist/tokenpaint-inject.js', import.meta.url));

/** @type {string | null} */
let script = null;
function injectable() {
  if (script) return script;
  if (!existsSync(INJECT)) throw new Error(`tokenpaint/playwright: ${INJECT} is missing (npm run build:extension makes it; the npm package ships it)`);
  return (script = readFileSync(INJECT, 'utf8'));
}

/**
 * Profiles the streamed answers of `page` (a Playwright Page, before it navigates). Options:
 * `testInfo` (the test's, to attach each report to), `timeout` (ms `next()` waits by default,
 * 30,000), `options` (the profiler's, as `new Profiler(options)` takes them), `cpuThrottle` (run
 * the page as a slow device: 4 is four times slower, as Chrome's DevTools throttle; Chromium
 * only, over the DevTools protocol). Returns `{ next(timeout?), reports(), status(), throttle }`:
 * `throttle` is `{ rate, applied, why? }` when a throttle was asked for (`applied: false` with
 * `why` where the browser cannot), else null.
 * @param {any} page
 * @param {{ testInfo?: any, timeout?: number, options?: any, cpuThrottle?: number | null }} [settings]
 */
export async function attach(page, { testInfo = null, timeout = 30000, options = null, cpuThrottle = null } = {}) {
  /** @type {{ rate: number, applied: boolean, why?: string } | null} */
  let throttle = null;
  if (cpuThrottle !== null && cpuThrottle !== undefined) {
    const rate = Number(cpuThrottle);
    try {
      if (!(rate >= 1)) throw new Error(`cpuThrottle must be 1 or more, not ${cpuThrottle}`);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
      throttle = { rate, applied: true };
    } catch (e) {
      const message = String(/** @type {any} */ (e)?.message);
      throttle = { rate, applied: false, why: /newCDPSession|CDP|not supported/i.test(message) ? 'devtools-protocol-unavailable' : message };
    }
  }
  /** @type {Report[]} */
  const reports = [];
  /** @type {Array<(report: Report) => void>} */
  const waiting = [];
  let taken = 0;
  /** @type {any} */
  let status = null;
  /** @type {Promise<void>[]} */
  const attachments = [];
  await page.exposeBinding('__tokenpaint', (/** @type {unknown} */ _source, /** @type {string} */ json) => {
    let m;
    try {
      m = JSON.parse(json);
    } catch {
      return;
    }
    if (m.type === 'status') status = m;
    if (m.type !== 'report') return;
    reports.push(m.report);
    if (testInfo) {
      const n = reports.length;
      attachments.push(
        testInfo.attach(`tokenpaint-report-${n}.json`, { body: JSON.stringify(m.report, null, 1), contentType: 'application/json' }),
        testInfo.attach(`tokenpaint-chart-${n}.svg`, { body: chartSvg(m.report), contentType: 'image/svg+xml' }),
        testInfo.attach(`tokenpaint-trace-${n}.json`, { body: JSON.stringify(traceOf(m.report)), contentType: 'application/json' }),
      );
    }
    while (waiting.length && taken < reports.length) /** @type {(report: Report) => void} */ (waiting.shift())(reports[taken++]);
  });
  // The profiler's options (e.g. `{ appReaders: false }`), set before the injected script runs.
  if (options) await page.addInitScript((/** @type {unknown} */ o) => (/** @type {any} */ (globalThis).tokenpaintOptions = o), options);
  await page.addInitScript({ content: injectable() });
  return {
    /**
     * The next report not yet taken, within `ms` (rejects with what the page said, if anything).
     * @returns {Promise<Report>}
     */
    next(ms = timeout) {
      if (taken < reports.length) return Promise.all(attachments).then(() => reports[taken++]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const i = waiting.indexOf(take);
          if (i >= 0) waiting.splice(i, 1);
          reject(new Error(`tokenpaint: no report within ${ms} ms${status && status.status === 'blocked' ? `: ${status.why}` : ''}`));
        }, ms);
        const take = (/** @type {Report} */ r) => {
          clearTimeout(timer);
          Promise.all(attachments).then(() => resolve(r));
        };
        waiting.push(take);
      });
    },
    /** Every report so far. */
    reports: () => reports.slice(),
    /** `{ status: 'on' | 'blocked', why }` once the page said, else null. */
    status: () => status,
    /** The CPU throttle asked for: `{ rate, applied, why? }`, or null. */
    throttle,
  };
}

/** @typedef {import('./report.js').Report} Report */
/** @typedef {import('./report.js').StreamReport} StreamReport */
/** @typedef {import('./playwright.js').Budget} Budget */

// Each budget: the report's figure, its name in a message, and its unit.
/** @type {Record<string, [(r: StreamReport) => number | null | undefined, string]>} */
const FIGURES = {
  ttft: [(r) => r.ttft, 'TTFT measured'],
  ttftPerceived: [(r) => r.ttftPerceived && r.ttftPerceived.painted, 'perceived TTFT'],
  e2ePerceived: [(r) => r.e2ePerceived && r.e2ePerceived.painted, 'perceived E2E'],
  lagP50: [(r) => r.lag && r.lag.p50, 'lag p50'],
  lagP95: [(r) => r.lag && r.lag.p95, 'lag p95'],
  tpot: [(r) => r.tpot, 'TPOT'],
  // Smoothness (issue 49): the longest freeze (0 when the answer was painted without one), and
  // the user's longest interaction while it streamed (0 without any; unknown without Event Timing).
  freeze: [(r) => (r.stalls ? (r.stalls.longest ?? 0) : null), 'longest freeze'],
  inputDuration: [(r) => (r.input ? r.input.durationMaxMs : (r.unavailable || []).includes('event-timing') ? null : 0), 'longest interaction'],
};

/**
 * Checks `report` against `budget`: upper bounds in ms (`ttft`, `ttftPerceived`, `e2ePerceived`,
 * `lagP50`, `lagP95`, `tpot`, `freeze`, `inputDuration`), `matched` (the lowest share matched, default 99) and `forbid`
 * (verdicts that fail it). Returns `{ pass, failures, verdict }`. A figure the report could not
 * measure (null) fails its budget: an instrument that cannot see does not pass.
 * @param {Report | null | undefined} report
 * @param {Budget} [budget]
 */
export function checkBudget(report, budget = {}) {
  const failures = [];
  if (!report || typeof report !== 'object') return { pass: false, failures: ['no report'], verdict: null };
  for (const [k, limit] of Object.entries(budget)) {
    if (!(k in FIGURES)) continue;
    const [of, name] = FIGURES[k];
    const v = of(/** @type {StreamReport} */ (report));
    if (v === null || v === undefined) failures.push(`${name} unknown (budget ${limit} ms)`);
    else if (v > limit) failures.push(`${name} ${Math.round(v)} ms > ${limit} ms`);
  }
  const matched = budget.matched ?? 99;
  const pct = report.matchedPct;
  // Unknown fails, whatever the bound (`null >= 0` would pass it).
  if (pct === null || pct === undefined || !(pct >= matched)) failures.push(`matched ${report.matchedPct ?? 'unknown'}% < ${matched}%`);
  const verdicts = (report.diagnosis || []).map((/** @type {{ verdict: string }} */ v) => v.verdict);
  for (const v of budget.forbid || []) if (verdicts.includes(v)) failures.push(`verdict ${v}`);
  return { pass: failures.length === 0, failures, verdict: (report.diagnosis || [])[0] || null };
}

/** Matchers for Playwright's `expect.extend`: `expect(report).toMeetBudget(budget)`. */
export const budgets = {
  /**
   * @param {Report} report
   * @param {Budget} budget
   */
  toMeetBudget(report, budget) {
    const { pass, failures, verdict } = checkBudget(report, budget);
    const why = verdict ? `verdict ${verdict.verdict}: ${verdict.fix || verdict.evidence || ''}` : 'no verdict';
    return {
      pass,
      name: 'toMeetBudget',
      message: () =>
        pass
          ? `expected the answer to miss its budget ${JSON.stringify(budget)}, and it met it (${why})`
          : `the streamed answer missed its budget:\n  - ${failures.join('\n  - ')}\n${why}\n(report ${report && report.id}, ${report && report.url})`,
    };
  },
};

/**
 * The report's chart as SVG: characters arrived, committed and painted over time (ms from the
 * request start), from its timeline; a note when the report has none.
 * @param {Partial<import('./report.js').StreamReport> | null | undefined} report a report (with its timeline, unless the profiler's `timeline` was off)
 */
export function chartSvg(report) {
  const W = 640;
  const H = 200;
  const tl = report && report.timeline;
  const esc = (/** @type {unknown} */ s) => String(s).replace(/[<&>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const head = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`;
  const title = `<text x="8" y="14">${esc(`tokenpaint: ${(report && report.diagnosis && report.diagnosis[0] && report.diagnosis[0].verdict) || report?.status || ''}`)}</text>`;
  if (!tl || !Array.isArray(tl.arrived) || !tl.arrived.length) return `${head}${title}<text x="8" y="40">no timeline in this report</text></svg>`;
  /** @type {number[]} */
  const chars = [];
  let total = 0;
  for (const c of tl.chars) chars.push((total += c));
  const series = { arrived: tl.arrived, committed: tl.committed, painted: tl.painted };
  const all = /** @type {number[]} */ (Object.values(series).flat().filter(Number.isFinite));
  const tMax = Math.max(1, ...all);
  const x = (/** @type {number} */ t) => 40 + (t / tMax) * (W - 50);
  const y = (/** @type {number} */ n) => H - 20 - (n / Math.max(1, total)) * (H - 40);
  /** @type {Record<string, string>} */
  const colors = { arrived: '#2563eb', committed: '#16a34a', painted: '#dc2626' };
  let lines = '';
  let legend = '';
  let lx = 120;
  for (const [name, ts] of Object.entries(series)) {
    const pts = /** @type {Array<number | null>} */ (ts).map((t, i) => (t !== null && Number.isFinite(t) ? `${x(t).toFixed(1)},${y(chars[i]).toFixed(1)}` : null)).filter(Boolean);
    if (pts.length) lines += `<polyline fill="none" stroke="${colors[name]}" stroke-width="1.5" points="${pts.join(' ')}"/>`;
    legend += `<text x="${lx}" y="14" fill="${colors[name]}">${name}</text>`;
    lx += 70;
  }
  const axes = `<line x1="40" y1="${H - 20}" x2="${W - 10}" y2="${H - 20}" stroke="#94a3b8"/><text x="40" y="${H - 6}">0</text><text x="${W - 60}" y="${H - 6}">${Math.round(tMax)} ms</text><text x="4" y="${y(total) + 4}">${total}</text>`;
  return `${head}${title}${legend}${axes}${lines}</svg>`;
}
