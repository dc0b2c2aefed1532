// The live view: onProgress while an answer streams, and the development overlay
// (tokenpaint/overlay) on the lab page and under the strict-CSP page, in Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { setup, FRAME } from '../support/helpers.mjs';

const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
let env;
before(async () => {
  env = await setup();
  mkdirSync(ARTIFACTS, { recursive: true });
});
after(() => env.close());

/** Characters arrived minus painted by `t` (ms from the start), from a report's per-token arrays. */
function backlogAt(tl, t) {
  let n = 0;
  tl.chars.forEach((c, i) => {
    if (tl.arrived[i] !== null && tl.arrived[i] <= t) n += c;
    if (tl.painted[i] !== null && tl.painted[i] <= t) n -= c;
  });
  return n;
}

test('onProgress during a 5 s stream: several updates a second, the backlog the final report says at the same times; no progress work without a subscriber', async (t) => {
  const page = await env.harness();
  const r = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const { deltas } = await import('/tests/pages/deltas.js');
    const chat = document.getElementById('chat');
    // The app shows each piece 150 ms after it arrives: text waits, a backlog builds up.
    const run = async (p, query, wait) => {
      const out = document.createElement('div');
      chat.append(out);
      const done = new Promise((res) => p.onReport(res));
      const res = await p.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
      const shown = [];
      for await (const { content } of deltas(res.body)) shown.push(new Promise((ok) => setTimeout(() => ok(out.append(content)), wait)));
      await Promise.all(shown);
      return done;
    };
    const p = new Profiler();
    p.observe(chat);
    const seen = [];
    const off = p.onProgress((x) => seen.push(x));
    const report = await run(p, 'ttft_ms=100&token_ms=50&tokens=100', 150);
    off();
    // A profiler nobody subscribed to: a stream, and no frame of progress work.
    const quiet = new Profiler();
    quiet.observe(chat);
    const quietReport = await run(quiet, 'ttft_ms=20&token_ms=10&tokens=30', 0);
    p.disconnect();
    quiet.disconnect();
    const { inside } = await import('/js/profiler.js');
    return { seen, report, frames: inside(p).progressFrames, quietFrames: inside(quiet).progressFrames, quietMatched: quietReport.matchedPct };
  });
  const { seen, report } = r;
  const streaming = seen.filter((x) => x.id === report.id && !x.ended);
  const span = (streaming[streaming.length - 1].t - streaming[0].t) / 1000;
  const rate = streaming.length / span;
  t.diagnostic(`${streaming.length} updates over ${span.toFixed(2)} s (${rate.toFixed(1)}/s), peak backlog ${Math.max(...streaming.map((x) => x.backlog))} chars, report backlogPeak ${report.backlogPeak}`);
  assert.ok(span > 4, `the stream ran ${span} s`);
  assert.ok(rate >= 4, `${rate} updates a second`);
  assert.ok(Math.max(...streaming.map((x) => x.backlog)) > 0, 'a backlog was seen');
  // Each backlog seen is the report's at the same time, within one frame.
  let off = 0;
  for (const x of seen.filter((s) => s.id === report.id)) {
    // The report's times are rounded to 0.01 ms: every moment within a frame of the sample, each
    // arrival and paint in it included, gives the range the sample must fall in.
    const tl = report.timeline;
    const moments = [x.t - FRAME, x.t, x.t + FRAME, ...tl.arrived, ...tl.painted].filter((m) => m !== null && Math.abs(m - x.t) <= FRAME);
    const around = moments.map((at) => backlogAt(tl, at));
    if (x.backlog < Math.min(...around) || x.backlog > Math.max(...around)) {
      off++;
      t.diagnostic(`t ${x.t}: backlog ${x.backlog}, the report's within a frame ${Math.min(...around)} to ${Math.max(...around)}`);
    }
  }
  assert.equal(off, 0, `${off} of ${seen.length} progress backlogs differ from the report's`);
  const last = seen.filter((s) => s.id === report.id).at(-1);
  assert.ok(Math.abs(last.ttft - report.ttft) <= 0.01, `ttft ${last.ttft} vs ${report.ttft}`);
  assert.ok(Math.abs(last.ttftPerceived - report.ttftPerceived.painted) <= 0.01);
  assert.ok(r.frames > 0);
  assert.equal(r.quietFrames, 0, 'no progress work without a subscriber');
  assert.equal(r.quietMatched, 100);
  assert.deepEqual(page.errors, []);
  await page.close();
});

async function overlayText(page) {
  return page.evaluate(() => {
    const root = window.panel.root;
    return {
      cells: Object.fromEntries([...root.querySelectorAll('dd')].map((d) => [d.dataset.k, d.textContent])),
      verdict: root.querySelector('.v').textContent,
      fix: root.querySelector('.f').textContent,
      sheets: root.adoptedStyleSheets.length,
    };
  });
}

test('the overlay under the strict CSP: no violation, the app text and style untouched, matched 100%', async () => {
  const page = await env.page('/tests/pages/csp.html?overlay');
  await page.waitForFunction(() => window.report, null, { timeout: 15000 });
  await page.waitForFunction(() => window.panel.root.querySelector('.v').textContent !== '');
  const o = await overlayText(page);
  const s = await page.evaluate(() => ({
    report: window.report,
    violations: window.violations,
    chat: document.getElementById('chat').textContent,
    before: window.chatStyle,
    after: getComputedStyle(document.getElementById('chat')).cssText || JSON.stringify([getComputedStyle(document.getElementById('chat')).color, getComputedStyle(document.getElementById('chat')).font]),
  }));
  writeFileSync(path.join(ARTIFACTS, 'overlay-csp.png'), await page.screenshot());
  assert.deepEqual(s.violations, []);
  assert.deepEqual(await (await fetch(`${env.url}/csp-reports`)).json(), []);
  assert.equal(s.report.matchedPct, 100, 'the overlay is not counted as answer text');
  assert.ok(!s.chat.includes('tokenpaint') && !s.chat.includes('TTFT'), "the app's text has none of the overlay's");
  assert.equal(s.after, s.before, "the app's computed style");
  assert.equal(o.sheets, 1, 'styled by a constructable stylesheet');
  assert.equal(o.verdict, s.report.diagnosis[0].verdict);
  assert.match(o.cells.ttft, /^\d+ ms$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the overlay on the lab page: live figures, then the verdict; the lab looks and reads the same', async () => {
  const page = await env.lab();
  const styleOf = () =>
    page.evaluate(() => ['#messages', 'h1', 'body', '#send'].map((q) => {
      const cs = getComputedStyle(document.querySelector(q));
      return [q, cs.color, cs.backgroundColor, cs.fontFamily, cs.fontSize, cs.position];
    }));
  const before = await styleOf();
  await page.evaluate(async () => {
    const { overlay } = await import('/js/overlay.js');
    window.panel = overlay(window.tokenpaintProfiler);
    window.liveSeen = 0;
    window.tokenpaintProfiler.onProgress(() => window.liveSeen++);
  });
  await page.click('#send');
  await page.waitForFunction(() => window.liveSeen > 5, null, { timeout: 10000 });
  const live = await overlayText(page);
  await page.waitForFunction(() => window.tokenpaintProfiler.reports().length > 0, null, { timeout: 20000 });
  await page.waitForFunction(() => window.panel.root.querySelector('.v').textContent !== '');
  const done = await overlayText(page);
  const r = await page.evaluate(() => window.tokenpaintProfiler.reports()[0]);
  writeFileSync(path.join(ARTIFACTS, 'overlay-lab.png'), await page.screenshot({ fullPage: true }));
  assert.match(live.cells.backlog, /^\d+ chars$/, 'live backlog while streaming');
  assert.equal(done.verdict, r.diagnosis[0].verdict);
  assert.equal(done.fix, r.diagnosis[0].fix);
  assert.equal(r.matchedPct, 100);
  assert.deepEqual(await styleOf(), before, "the lab's computed styles");
  assert.equal(await page.evaluate(() => document.querySelector('[data-tokenpaint-overlay]').textContent), '', "the overlay's text is in no element's textContent");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('onProgress on a page where tokenpaint sees no DOM: painted, backlog, perceived TTFT, lag and wait are unknown, not zero', async () => {
  const page = await env.harness();
  const seen = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler(); // nothing observed, no target: no DOM evidence
    const seen = [];
    p.onProgress((x) => seen.push(x));
    const done = new Promise((res) => p.onReport(res));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=20&token_ms=30&tokens=20', { method: 'POST', body: '{}' });
    document.getElementById('chat').textContent = await res.text();
    await done;
    p.disconnect();
    return seen;
  });
  assert.ok(seen.length > 0, 'progress came');
  assert.ok(seen.some((x) => x.arrived > 0), 'arrivals are known');
  for (const x of seen) assert.deepEqual([x.painted, x.backlog, x.ttftPerceived, x.lag, x.waiting], [null, null, null, null, null], JSON.stringify(x));
  assert.deepEqual(page.errors, []);
  await page.close();
});
