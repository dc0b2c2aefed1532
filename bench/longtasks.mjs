// Long tasks (issue 17): long animation frames (50 ms or more, Chromium's LoAF entries, with the
// scripts that ran in them) while tokenpaint works, and whether tokenpaint's own scripts caused
// them. Three moments: the 20,000-token run of the overhead benchmark (read from its profiled
// page), the report of a 100,000-token answer (its timeline included), and summary() over 1,000
// reports. A long frame is tokenpaint's when its scripts from tokenpaint (js/, pkg/) take more
// than half of the frame.
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS } from '../tests/support/helpers.mjs';
import { ours } from './attribution.mjs';


/** Long frames in `loafs` (optionally those starting after `after`), and which were tokenpaint's. */
export function attribute(loafs, after = -Infinity) {
  const long = loafs.filter((l) => l.start >= after && l.duration >= 50);
  const rows = long.map((l) => {
    const mine = l.scripts.filter((s) => ours(s.url)).reduce((a, s) => a + s.duration, 0);
    return { duration: l.duration, tokenpaintMs: mine, tokenpaints: mine > l.duration / 2, scripts: l.scripts.map((s) => `${s.url.split('/').pop() || '?'}:${s.fn || s.invoker} ${s.duration.toFixed(1)} ms`).slice(0, 4) };
  });
  return { long: rows.length, tokenpaints: rows.filter((r) => r.tokenpaints).length, worstMs: Math.max(0, ...rows.map((r) => r.tokenpaintMs)), rows };
}

/** The reference chat page (bench/pages/chat.html), once its `run` is there. */
export async function openChat(browser, url) {
  const page = await browser.newPage();
  await page.goto(`${url}/bench/pages/chat.html`);
  await page.waitForFunction(() => typeof window.run === 'function');
  return page;
}

export async function runLongTasks({ tokens = 100000, reports = 1000, log = console.log } = {}) {
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const open = () => openChat(browser, url);
    // The report of a long answer: the body is read (token_ms 0: as fast as the socket goes),
    // then the page holds; what follows is the report.
    let page = await open();
    let body;
    await page.evaluate((a) => {
      window.result = window.run(a);
    }, { tokens, tokenMs: 0, profile: true, hold: true, timeline: true });
    await page.waitForFunction(() => window.readDone === true, null, { timeout: 600000, polling: 500 });
    const end = await page.evaluate(() => performance.now());
    await page.evaluate(() => window.proceed());
    const r = await page.evaluate(() => window.result);
    if (!r.report || r.report.deltas !== tokens) throw new Error(`report ${JSON.stringify(r.report)}`);
    const loafs = await page.evaluate(() => window.loafs);
    const report = attribute(loafs, end);
    // The observer sees long frames: while the body is read at full socket speed, the page's
    // own read loop makes some (they show the measure can see them).
    body = loafs.filter((l) => l.start < end && l.duration >= 50).length;
    log(`report of ${tokens} tokens: ${report.long} long frames after the body, ${report.tokenpaints} tokenpaint's (${body} while the body was read)`);
    await page.close();
    // summary() over many reports.
    page = await open();
    const m = await page.evaluate((a) => window.manyReports(a), { n: reports, tokens: 20 });
    if (m.reports !== reports) throw new Error(`${m.reports} reports of ${reports}`);
    await new Promise((res) => setTimeout(res, 300));
    const summary = attribute(await page.evaluate(() => window.loafs), m.at - 1);
    log(`summary over ${m.reports} reports: ${m.summaryMs.toFixed(1)} ms, ${summary.long} long frames, ${summary.tokenpaints} tokenpaint's`);
    await page.close();
    return { tokens, reports, report, body, summary, summaryMs: m.summaryMs };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runLongTasks({ tokens: Number(process.env.TOKENS || 100000) }), null, 1));
}
