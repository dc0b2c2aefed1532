// The real chat apps, installed from PyPI at pinned versions and running here offline (started
// by scripts/real-apps.sh), profiled with no code: tokenpaint/playwright's attach() injects the
// same script as the extension, and nothing else is changed. Outside `npm test` (the apps take
// minutes and gigabytes to install); `npm run real-apps` runs it.
//
// For each app, RUNS times (10 by default), each in a fresh page: one question, then
// - one report for the answer and no other (no heartbeat, no status stream, no JSON side request);
// - status ok, matched ≥ 99%, no buffering verdict;
// - perceived TTFT and lag p50 within a frame of the test's own truth: a MutationObserver on the
//   app's answer element and an after-paint mark (rAF, then a task) of the test's own, against the
//   report's own arrival times;
// - with `--readers=off`: read `learned`, the same figures.
// Prints a line per run and the counts; exits 1 if any run fails.
import { chromium } from 'playwright-core';
import { attach } from '../../js/playwright.js';
import { answerTokens } from '../../scripts/sim.mjs';
import { CHROMIUM, ARGS, FRAME } from '../support/helpers.mjs';

const SLACK = 10;
const APPS = {
  gradio: {
    url: process.env.GRADIO_URL || 'http://127.0.0.1:7860/',
    prompt: 'textarea',
    reader: 'gradio',
    // The tokens the app's generator streams (scripts/real-apps/gradio_app.py).
    tokens: () => Array.from({ length: Number(process.env.TOKENS) || 40 }, (_, i) => `word${i} `),
  },
  'open-webui': {
    url: process.env.OPENWEBUI_URL || 'http://127.0.0.1:8080/',
    prompt: '#chat-input',
    reader: 'open-webui',
    // The tokens scripts/real-apps/openai-server.mjs streams (the simulator's, seed 1).
    tokens: () => answerTokens(Number(process.env.TOKENS) || 40, 1),
    async prepare(page) {
      // The release notes open over a fresh install's first page.
      const ok = page.getByText("Okay, Let's Go!");
      if (await ok.count()) await ok.first().click();
    },
  },
};

// The test's own truth, in the page before its scripts: after each DOM change, the page's text
// (letters and digits only) with the change's time; and a frame loop's after-paint marks (each
// frame's rAF posts a task, which runs once the frame is painted). A change is painted at the first
// mark after it: a change made inside a frame's own rAF callbacks is in that frame.
function truthRecorder() {
  const changes = [];
  const marks = [];
  window.__truth = { changes, marks };
  const ch = new MessageChannel();
  ch.port1.onmessage = () => marks.push(performance.now());
  const loop = () => {
    ch.port2.postMessage(0);
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  const mo = new MutationObserver(() => {
    const c = { t: performance.now(), text: (document.body.textContent || '').replace(/[^\p{L}\p{N}]/gu, '') };
    const last = changes[changes.length - 1];
    if (!last || last.text !== c.text) changes.push(c);
  });
  addEventListener('DOMContentLoaded', () => mo.observe(document.body, { childList: true, subtree: true, characterData: true }));
}

const letters = (s) => s.replace(/[^\p{L}\p{N}]/gu, '');
const count = (text, part) => text.split(part).length - 1;

/** One run: a fresh page, one question; what the report says against the page's truth. */
async function run(browser, app, readersOff) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const tp = await attach(page, { options: readersOff ? { appReaders: false } : null });
  await page.addInitScript(truthRecorder);
  await page.goto(app.url, { waitUntil: 'load' });
  await page.waitForSelector(app.prompt, { timeout: 60000 });
  await page.waitForTimeout(1000);
  if (app.prepare) await app.prepare(page);
  const input = page.locator(app.prompt).first();
  await input.click();
  await input.fill('Say something');
  await input.press('Enter');
  const report = await tp.next(60000);
  // Anything else that would be reported comes by now.
  await page.waitForTimeout(2000);
  const others = tp.reports().length - 1;
  const { changes: seen, marks } = await page.evaluate(() => window.__truth);
  const changes = seen.map((c) => ({ ...c, painted: marks.find((m) => m > c.t) ?? null }));
  await page.close();
  // The truth: token i is on screen at the first change after which the page's text holds the
  // answer up to it (letters and digits), and painted at the mark after that change.
  const tl = report.timeline;
  const lags = [];
  let firstPaint = null;
  const tokens = app.tokens();
  const answer = letters(tokens.join(''));
  if (tl.arrived.length !== tokens.length) throw new Error(`${tl.arrived.length} records for ${tokens.length} tokens`);
  let prefix = '';
  for (let i = 0; i < tl.arrived.length; i++) {
    prefix += letters(tokens[i]);
    if (!prefix) continue;
    // Shown once the page holds it more often than before the question (the first words may
    // be elsewhere on the page too).
    const before = count(changes.filter((x) => x.t < report.startTime).pop()?.text || '', prefix);
    const c = changes.find((x) => x.t >= report.startTime && x.painted !== null && count(x.text, prefix) > before);
    if (!c) continue;
    if (firstPaint === null) firstPaint = c.painted;
    lags.push(c.painted - (report.startTime + tl.arrived[i]));
  }
  if (process.env.DEBUG) {
    const a0 = changes.findIndex((c) => c.t >= report.startTime);
    console.log(JSON.stringify(changes.slice(a0, a0 + 12).map((c) => [c.t.toFixed(1), c.text.length, count(c.text, letters(tokens[0])), c.painted && c.painted.toFixed(1)])));
    console.log(JSON.stringify(tl.arrived.slice(0, 8).map((a, i) => [(report.startTime + a).toFixed(1), (report.startTime + tl.committed[i]).toFixed(1), (report.startTime + tl.painted[i]).toFixed(1)])));
  }
  lags.sort((a, b) => a - b);
  const truthLag = lags.length ? (lags.length % 2 ? lags[lags.length >> 1] : (lags[lags.length / 2 - 1] + lags[lags.length / 2]) / 2) : null;
  const truthTtft = firstPaint === null ? null : firstPaint - report.startTime;
  const perceived = report.ttftPerceived && report.ttftPerceived.painted;
  const fails = [];
  if (report.status !== 'ok') fails.push(`status ${report.status}`);
  if (!(report.matchedPct >= 99)) fails.push(`matched ${report.matchedPct}`);
  if (others !== 0) fails.push(`${others} other reports: ${tp.reports().slice(1).map((r) => r.url).join(', ')}`);
  if (report.diagnosis.some((d) => /buffer/.test(d.verdict))) fails.push(`verdict ${report.diagnosis.map((d) => d.verdict)}`);
  if (!(Math.abs(report.lag.p50 - truthLag) <= FRAME + SLACK)) fails.push(`lag p50 ${report.lag.p50} vs truth ${truthLag}`);
  if (!(Math.abs(perceived - truthTtft) <= FRAME + SLACK)) fails.push(`perceived TTFT ${perceived} vs truth ${truthTtft}`);
  const want = readersOff ? 'learned' : 'reader';
  if (!report.read || report.read.by !== want) fails.push(`read ${JSON.stringify(report.read)}`);
  if (errors.length) fails.push(`page errors: ${errors.join('; ')}`);
  return { report, truthLag, truthTtft, perceived, fails };
}

const args = process.argv.slice(2);
const runs = Number(process.env.RUNS) || 10;
const which = args.filter((a) => !a.startsWith('--'));
const readersOff = args.includes('--readers=off');
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
let failed = 0;
try {
  for (const name of which.length ? which : Object.keys(APPS)) {
    const app = APPS[name];
    let ok = 0;
    for (let i = 1; i <= runs; i++) {
      let r;
      try {
        r = await run(browser, app, readersOff);
      } catch (e) {
        r = { fails: [String((e && e.message) || e)] };
      }
      const rep = r.report;
      console.log(
        `${name}${readersOff ? ' (readers off)' : ''} run ${i}: ${r.fails.length ? `FAIL ${r.fails.join('; ')}` : 'ok'}` +
          (rep ? ` | ${rep.format} ${JSON.stringify(rep.read)} status ${rep.status}, matched ${rep.matchedPct}%, TTFT perceived ${perceived(r)} (truth ${fmt(r.truthTtft)}), lag p50 ${rep.lag && rep.lag.p50} (truth ${fmt(r.truthLag)}), tokens ${rep.tokens}, ${rep.diagnosis[0].verdict}` : ''),
      );
      if (r.fails.length) failed++;
      else ok++;
    }
    console.log(`${name}${readersOff ? ' (readers off)' : ''}: ${ok} of ${runs} runs passed`);
  }
} finally {
  await browser.close();
}
function fmt(x) {
  return x === null || x === undefined ? 'null' : x.toFixed(1);
}
function perceived(r) {
  return fmt(r.perceived);
}
process.exit(failed ? 1 : 0);
