// The main-thread cost of learning (issue 58): the same recorded app replayed (scripts/
// replay-server.mjs) with its reader and with the apps' readers off (learned from the page), side
// by side in one run, tokenpaint's own time taken from a CPU profile of the page (every sample
// with a frame of the injected script or its wasm module on its stack), from the question's Enter
// to the report. Open WebUI 0.12.4 (Socket.IO events) and Gradio 6.31.0 (SSE over fetch), each
// read by its reader and learned; Shiny 1.8.0, Panel 1.10.0, Rio 0.12.3 and PyWebIO 1.8.4 (issue
// 71: WebSocket apps no reader knows, learned only). Each round also runs the page without
// tokenpaint, and in every run: the long animation frames (50 ms or more) after the Enter and
// whether tokenpaint's scripts took most of one, and how long each socket frame waited for the
// app's listener after its event was made (tests/pages/replay.js: truth.heard).
// Usage: ROUNDS=5 node bench/learning.mjs
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startReplay } from '../scripts/replay-server.mjs';
import { buildInject } from '../scripts/build-extension.mjs';
import { CHROMIUM, ARGS, median } from '../tests/support/helpers.mjs';
import { attribute, underProfiler } from './attribution.mjs';

const SCRIPT = 'tokenpaint-inject.js';
const mine = (url) => typeof url === 'string' && (url.endsWith(SCRIPT) || url.startsWith('wasm://'));

async function once(browser, inject, file, options) {
  const server = await startReplay(file);
  const page = await browser.newPage();
  const got = [];
  await page.exposeBinding('__tokenpaint', (_s, json) => got.push(JSON.parse(json)));
  await page.addInitScript(() => {
    const loafs = (window.benchLoafs = []);
    try {
      new PerformanceObserver((l) => {
        for (const e of l.getEntries()) loafs.push({ start: e.startTime, duration: e.duration, scripts: e.scripts.map((x) => ({ url: x.sourceURL, duration: x.duration })) });
      }).observe({ type: 'long-animation-frame', buffered: true });
    } catch {}
  });
  if (options) {
    await page.addInitScript((o) => (globalThis.tokenpaintOptions = o), options);
    await page.addInitScript({ content: `${inject}\n//# sourceURL=${SCRIPT}` });
  }
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => window.replayReady === true, null, { timeout: 30000 });
    const cdp = await page.context().newCDPSession(page);
    const input = page.locator(server.rec.prompt).first();
    await input.fill(server.rec.question);
    let enter = 0;
    const { profile } = await underProfiler(cdp, 200, async () => {
      enter = await page.evaluate(() => performance.now());
      await input.press('Enter');
      await page.waitForFunction(() => window.replayDone === true, null, { timeout: 30000 });
      for (const until = Date.now() + (options ? 15000 : 1500); !got.some((m) => m.type === 'report') && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    });
    const report = got.find((m) => m.type === 'report')?.report;
    if (options && !report) throw new Error(`${file}: no report`);
    const { loafs, heard } = await page.evaluate(() => ({ loafs: window.benchLoafs, heard: window.truth.heard }));
    const long = loafs.filter((l) => l.start >= enter && l.duration >= 50);
    const own = (l) => l.scripts.filter((x) => mine(x.url)).reduce((a, x) => a + x.duration, 0);
    return {
      ...attribute(profile, mine),
      read: report && report.read && report.read.by,
      tokens: report && report.tokens,
      matched: report && report.matchedPct,
      long: long.length,
      longOwn: long.filter((l) => own(l) > l.duration / 2).length,
      ownMaxInLong: Math.max(0, ...long.map(own)),
      heard,
    };
  } finally {
    await page.close();
    await server.close();
  }
}

const APPS = [
  ['Open WebUI 0.12.4', 'tests/recordings/open-webui-0.12.4.json', true],
  ['Gradio 6.31.0', 'tests/recordings/gradio-6.31.0.json', true],
  ['Shiny 1.8.0', 'tests/recordings/shiny-1.8.0.json', false],
  ['Panel 1.10.0', 'tests/recordings/panel-1.10.0.json', false],
  ['Rio 0.12.3', 'tests/recordings/rio-0.12.3.json', false],
  ['PyWebIO 1.8.4', 'tests/recordings/pywebio-1.8.4.json', false],
];

export async function runLearning({ rounds = 5, log = console.log } = {}) {
  const inject = readFileSync(await buildInject(), 'utf8');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const rows = [];
  try {
    for (const [app, file, hasReader] of APPS) {
      const sides = { none: [], reader: [], learned: [] };
      const order = [['none', null], ...(hasReader ? [['reader', {}]] : []), ['learned', { appReaders: false }]];
      for (let k = 0; k < rounds; k++) {
        // Side by side: each round runs each, in an order turned by one each round.
        const turn = [...order.slice(k % order.length), ...order.slice(0, k % order.length)];
        for (const [side, options] of turn) sides[side].push(await once(browser, inject, file, options));
      }
      const ms = (xs) => (xs.length ? median(xs.map((x) => x.total)) : null);
      const heard = (xs) => xs.flatMap((x) => x.heard).sort((a, b) => a - b);
      const p = (xs, q) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(q * xs.length))] : null);
      const learned = sides.learned;
      const row = {
        app,
        tokens: learned[0].tokens,
        reader: ms(sides.reader),
        learned: ms(learned),
        matched: Math.min(...learned.map((x) => x.matched)),
        long: [...sides.reader, ...learned].reduce((a, x) => a + x.long, 0),
        longOwn: [...sides.reader, ...learned].reduce((a, x) => a + x.longOwn, 0),
        longBase: sides.none.reduce((a, x) => a + x.long, 0),
        ownMaxInLong: Math.max(0, ...[...sides.reader, ...learned].map((x) => x.ownMaxInLong)),
        heard: { none: heard(sides.none), learned: heard(learned) },
      };
      row.ratio = row.reader ? row.learned / row.reader : null;
      row.heardP95 = { none: p(row.heard.none, 0.95), learned: p(row.heard.learned, 0.95) };
      row.heardMax = { none: p(row.heard.none, 1), learned: p(row.heard.learned, 1) };
      rows.push(row);
      const f = (x) => (x === null ? '-' : x.toFixed(1));
      log(`${app}: tokenpaint's own main-thread time per answer (${row.tokens} tokens), median of ${rounds}: reader ${f(row.reader)} ms, learned ${f(row.learned)} ms${row.ratio ? ` (${row.ratio.toFixed(2)}x)` : ''} [${sides.reader.map((x) => x.total.toFixed(1)).join(', ')} | ${learned.map((x) => x.total.toFixed(1)).join(', ')}]; matched ${row.matched}%; long frames ${row.long} (tokenpaint's ${row.longOwn}; without it ${row.longBase}); socket frames to the app's listener p95/max ${f(row.heardP95.learned)}/${f(row.heardMax.learned)} ms (without tokenpaint ${f(row.heardP95.none)}/${f(row.heardMax.none)}, ${row.heard.learned.length} frames)`);
    }
  } finally {
    await browser.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await runLearning({ rounds: Number(process.env.ROUNDS || 5) });
