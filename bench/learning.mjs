// The main-thread cost of learning (issue 58): the same recorded app replayed (scripts/
// replay-server.mjs) with its reader and with the apps' readers off (learned from the page), side
// by side in one run, tokenpaint's own time taken from a CPU profile of the page (every sample
// with a frame of the injected script or its wasm module on its stack), from the question's Enter
// to the report. Open WebUI 0.12.4 (Socket.IO events) and Gradio 6.31.0 (SSE over fetch).
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
  await page.addInitScript((o) => (globalThis.tokenpaintOptions = o), options);
  await page.addInitScript({ content: `${inject}\n//# sourceURL=${SCRIPT}` });
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => window.replayReady === true, null, { timeout: 30000 });
    const cdp = await page.context().newCDPSession(page);
    const input = page.locator(server.rec.prompt).first();
    await input.fill(server.rec.question);
    const { profile } = await underProfiler(cdp, 200, async () => {
      await input.press('Enter');
      await page.waitForFunction(() => window.replayDone === true, null, { timeout: 30000 });
      for (const until = Date.now() + 15000; !got.some((m) => m.type === 'report') && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    });
    const report = got.find((m) => m.type === 'report')?.report;
    return { ...attribute(profile, mine), read: report && report.read && report.read.by, tokens: report && report.tokens };
  } finally {
    await page.close();
    await server.close();
  }
}

export async function runLearning({ rounds = 5, log = console.log } = {}) {
  const inject = readFileSync(await buildInject(), 'utf8');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const rows = [];
  try {
    for (const [app, file] of [['Open WebUI 0.12.4', 'tests/recordings/open-webui-0.12.4.json'], ['Gradio 6.31.0', 'tests/recordings/gradio-6.31.0.json']]) {
      const reader = [];
      const learned = [];
      for (let k = 0; k < rounds; k++) {
        // Side by side: each round runs both, in alternating order.
        const pair = k % 2 ? [[learned, { appReaders: false }], [reader, {}]] : [[reader, {}], [learned, { appReaders: false }]];
        for (const [into, options] of pair) into.push(await once(browser, inject, file, options));
      }
      const ms = (xs) => median(xs.map((x) => x.total));
      const row = { app, reader: ms(reader), learned: ms(learned), tokens: reader[0].tokens, reads: [reader[0].read, learned[0].read] };
      row.ratio = row.learned / row.reader;
      rows.push(row);
      log(`${app}: tokenpaint's own main-thread time per answer (${row.tokens} tokens), median of ${rounds}: reader ${row.reader.toFixed(1)} ms, learned ${row.learned.toFixed(1)} ms (${row.ratio.toFixed(2)}x) [${reader.map((x) => x.total.toFixed(1)).join(', ')} | ${learned.map((x) => x.total.toFixed(1)).join(', ')}]`);
    }
  } finally {
    await browser.close();
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await runLearning({ rounds: Number(process.env.ROUNDS || 5) });
