// tokenpaint's callbacks on the React chat (bench/pages/react.jsx), timed in the page with no
// profiler: every MutationObserver, requestAnimationFrame, scheduler.postTask, setTimeout and
// requestIdleCallback callback is wrapped before any script runs, and its time summed by kind.
// The React page has none of its own but React's MessageChannel scheduler (not wrapped), so
// what is counted is tokenpaint's (or the floor's), against the page's own TaskDuration without
// either. What it misses: the tap's read continuations (a stream's pull, not a callback) and
// the browser's own work that a callback causes (a frame it asks for).
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS, median } from '../tests/support/helpers.mjs';
import { bundleReact, openReact, taskMs as task } from './react.mjs';

function wrapCallbacks() {
  const acc = (window.callbackTime = {});
  const time = (kind, fn) =>
    function (...a) {
      const t0 = performance.now();
      try {
        return fn.apply(this, a);
      } finally {
        const e = acc[kind] || (acc[kind] = { n: 0, ms: 0 });
        e.n++;
        e.ms += performance.now() - t0;
      }
    };
  const MO = window.MutationObserver;
  window.MutationObserver = class extends MO {
    constructor(cb) {
      super(time('observer', cb));
    }
  };
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (cb) => raf(time('frame', cb));
  if (globalThis.scheduler && scheduler.postTask) {
    const post = scheduler.postTask.bind(scheduler);
    scheduler.postTask = (cb, o) => post(time('task', cb), o);
  }
  const st = window.setTimeout.bind(window);
  window.setTimeout = (cb, ms, ...r) => (typeof cb === 'function' ? st(time('timer', cb), ms, ...r) : st(cb, ms, ...r));
  if (window.requestIdleCallback) {
    const ric = window.requestIdleCallback.bind(window);
    window.requestIdleCallback = (cb, o) => ric(time('idle', cb), o);
  }
}

export async function runCallbacks({ rounds = 3, tokens = 600, tokenMs = 20, log = console.log } = {}) {
  await bundleReact();
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const query = `ttft_ms=100&token_ms=${tokenMs}&tokens=${tokens}`;
  try {
    const plain = await openReact(browser, url);
    const wrapped = await openReact(browser, url, { init: wrapCallbacks });
    const rows = [];
    for (let k = 0; k < rounds; k++) {
      const before = await task(plain.cdp);
      const r0 = await plain.page.evaluate((a) => window.run(a), { query, profile: false });
      const page = (await task(plain.cdp)) - before;
      if (r0.deltas !== tokens) throw new Error(`deltas ${r0.deltas} of ${tokens}`);
      const sum = (acc) => Object.values(acc).reduce((s, e) => s + e.ms, 0);
      // tokenpaint, then the floor (one bracket per commit), on the wrapped page.
      await wrapped.page.evaluate(() => Object.keys(window.callbackTime).forEach((key) => delete window.callbackTime[key]));
      const r1 = await wrapped.page.evaluate((a) => window.run(a), { query, profile: true });
      if (!r1.report || r1.report.deltas !== tokens) throw new Error(`report ${JSON.stringify(r1.report)}`);
      const mine = await wrapped.page.evaluate(() => window.callbackTime);
      // observe() with no element: the whole document watched, the answer found around changes.
      await wrapped.page.evaluate(() => Object.keys(window.callbackTime).forEach((key) => delete window.callbackTime[key]));
      const r2 = await wrapped.page.evaluate((a) => window.run(a), { query, profile: 'document' });
      if (!r2.report || r2.report.deltas !== tokens) throw new Error(`report ${JSON.stringify(r2.report)}`);
      const doc = await wrapped.page.evaluate(() => window.callbackTime);
      await wrapped.page.evaluate(() => {
        Object.keys(window.callbackTime).forEach((key) => delete window.callbackTime[key]);
        return import('/bench/pages/floor.js').then((m) => (window.stopFloor = m.startFloor(true, 'bracket')) && 0);
      });
      await wrapped.page.evaluate((a) => window.run(a), { query, profile: false });
      const floor = await wrapped.page.evaluate(() => (window.stopFloor(), window.callbackTime));
      const row = { page, own: sum(mine), document: sum(doc), floor: sum(floor), parts: mine, matched: Math.min(r1.report.matchedPct, r2.report.matchedPct) };
      rows.push(row);
      const parts = Object.entries(mine)
        .map(([kind, e]) => `${kind} ${e.n}x ${e.ms.toFixed(1)} ms`)
        .join(', ');
      log(`callbacks round ${k + 1}: the page ${page.toFixed(0)} ms; tokenpaint's callbacks ${row.own.toFixed(1)} ms (${((row.own / page) * 100).toFixed(2)}%: ${parts}); with observe() of the whole document ${row.document.toFixed(1)} ms (${((row.document / page) * 100).toFixed(2)}%); the floor's ${row.floor.toFixed(1)} ms (${((row.floor / page) * 100).toFixed(2)}%)`);
    }
    return {
      rounds,
      page: median(rows.map((r) => r.page)),
      own: median(rows.map((r) => r.own)),
      floor: median(rows.map((r) => r.floor)),
      document: median(rows.map((r) => r.document)),
      documentShare: median(rows.map((r) => r.document / r.page)),
      documentShares: rows.map((r) => r.document / r.page),
      ownShare: median(rows.map((r) => r.own / r.page)),
      ownShares: rows.map((r) => r.own / r.page),
      floorShare: median(rows.map((r) => r.floor / r.page)),
      floorShares: rows.map((r) => r.floor / r.page),
      onTopShare: median(rows.map((r) => (r.own - r.floor) / r.page)),
      matched: Math.min(...rows.map((r) => r.matched)),
    };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runCallbacks({ rounds: Number(process.env.ROUNDS || 3) }), null, 1));
}
