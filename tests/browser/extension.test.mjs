// Issue 34: any chat page, no code. Four chat pages with no line of tokenpaint in them (a React
// StrictMode app with react-markdown, deep-chat in its open shadow root, an sse.js XHR page, a
// Socket.IO page), profiled two ways:
// - by the browser extension, built and loaded into Chromium (new headless mode) and turned on for
//   the site with its popup's switch, as a user does: the overlay shows the report, the popup
//   lists and exports it, and the page receives the same data, shows the same DOM and logs the
//   same errors as with the extension off;
// - by `observe()` with no element, through the same instrumentation injected before the page's
//   scripts (Playwright's addInitScript, as a test runner would).
// Each answer is matched, its lag p50 is within a frame of the page's own truth, and the element
// tokenpaint claimed is that answer's: never the question, the prompt field, or an earlier answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setup, FRAME } from '../support/helpers.mjs';
import { setupExtension, overlayText } from '../support/extension.mjs';
import { buildInject } from '../../scripts/build-extension.mjs';
import { buildApp } from '../apps/build.mjs';

const SLACK = 10;
const PROMPT = 'Explain streaming latency.';

// Each page: how to ask (turn i), how many turns, and the app's own selector of an answer.
const PAGES = [
  { name: 'sse.js (XHR)', path: '/tests/pages/bare/sse.html', ask: () => window.send('ttft_ms=50&token_ms=20&tokens=40'), turns: 2, answer: '.msg.assistant' },
  { name: 'Socket.IO', path: '/tests/pages/bare/socketio.html', ask: () => window.send({ tokens: 40, token_ms: 20 }), turns: 2, answer: 'article.assistant' },
  { name: 'React StrictMode + react-markdown', path: '/tests/pages/bare-react-app/index.html', ask: () => window.send('content=markdown&ttft_ms=50&token_ms=15'), turns: 2, answer: '.assistant > .content' },
  { name: 'deep-chat (open shadow root)', path: '/tests/pages/bare-deepchat-app/index.html', ask: () => window.send('ttft_ms=50&token_ms=20&tokens=40'), turns: 1, answer: '.outer-message-container.deep-chat-outer-container-role-ai' },
];

let ext;
let plain;
let inject;
before(async () => {
  await buildApp('bare-react');
  await buildApp('bare-deepchat');
  inject = readFileSync(await buildInject());
  ext = await setupExtension();
  plain = await setup();
});
after(async () => {
  await ext.close();
  await plain.close();
});

/** Uses the page as its user would (each turn once the last is shown); what it received and shows. */
async function use(page, p) {
  await page.waitForFunction(() => window.appReady === true, null, { timeout: 15000 });
  for (let i = 0; i < p.turns; i++) await page.evaluate(p.ask);
  return page.evaluate(() => {
    const body = document.body.cloneNode(true);
    for (const el of body.querySelectorAll('[data-tokenpaint-overlay]')) el.remove();
    return { received: window.received.join(''), dom: body.innerHTML };
  });
}

/** Where the report's selector leads in the page: the answer's index among the app's answers. */
function claimed(page, selector, answer) {
  return page.evaluate(
    ([sel, ans]) => {
      let scope = document;
      let el = null;
      for (const [i, part] of sel.split(' >>> ').entries()) {
        const found = [...scope.querySelectorAll(part)];
        if (found.length !== 1) return { error: `${found.length} elements for ${part}` };
        el = found[0];
        if (i < sel.split(' >>> ').length - 1) scope = el.shadowRoot;
      }
      const answers = [...el.getRootNode().querySelectorAll(ans)];
      return { index: answers.indexOf(el), text: el.textContent };
    },
    [selector, answer],
  );
}

async function holds(page, p, reports, how) {
  assert.equal(reports.length, p.turns, `${p.name}: one report per answer`);
  for (const [i, r] of reports.entries()) {
    const truth = await page.evaluate((n) => window.truth(n), i);
    const what = `${p.name}, answer ${i + 1}`;
    assert.equal(r.status, 'ok', `${what}: ${JSON.stringify(r.error)}`);
    assert.ok(r.matchedPct >= 99, `${what}: matched ${r.matchedPct}`);
    assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `${what}: lag p50 ${r.lag.p50} vs the page's ${truth}`);
    assert.equal(r.element.how, how, `${what}: ${JSON.stringify(r.element)}`);
    const el = await claimed(page, r.element.selector, p.answer);
    assert.equal(el.index, i, `${what}: ${r.element.selector} is answer ${i + 1} (${JSON.stringify(el)})`);
    assert.ok(!el.text.includes(PROMPT), `${what}: the claimed element holds the question`);
  }
}

for (const p of PAGES) {
  test(`extension, ${p.name}: an unmodified page, reported in the overlay and the popup, the same data, DOM and errors as with it off`, async (t) => {
    const page = await ext.page(p.path);
    await ext.turnOff(page);
    const off = await use(page, p);
    const offErrors = page.errors.splice(0);
    await ext.turnOn(page);
    const on = await use(page, p);
    const st = await ext.reports(page, p.turns);
    t.diagnostic(`status ${st && st.status}; ${(st ? st.reports : []).map((r) => `lag p50 ${r.lag?.p50}, matched ${r.matchedPct}%, ${r.element?.selector}`).join('; ')}`);
    assert.equal(st.status, 'on');
    await holds(page, p, st.reports, 'document');
    assert.equal(on.received, off.received, 'the page received the same data');
    assert.equal(on.dom, off.dom, 'the page shows the same DOM (but the overlay)');
    assert.deepEqual(page.errors, offErrors, 'the same errors as with the extension off');
    // The overlay: the last answer's verdict and figures.
    const last = st.reports[st.reports.length - 1];
    const shown = await overlayText(page);
    assert.ok(shown && shown.includes(`${last.status}, ${last.tokens} tokens`), shown);
    assert.ok(shown.includes(`${last.matchedPct}%`) && shown.includes(last.diagnosis[0].verdict), shown);
    assert.ok(shown.includes(`lag (last token; p50 at the end) ${Math.round(last.lag.p50)} ms`), `the overlay's lag p50: ${shown}`);
    // The popup lists each report.
    const popup = await ext.popup(page);
    await popup.waitForFunction((n) => document.querySelectorAll('#reports tbody tr').length === n, p.turns);
    assert.deepEqual(popup.errors, []);
    await popup.close();
    await page.close();
  });

  test(`observe() with no element, ${p.name}: the same figures, the answer's element claimed`, async (t) => {
    const page = await plain.browser.newPage();
    const got = [];
    page.errors = [];
    page.on('pageerror', (e) => page.errors.push(e.message));
    await page.exposeBinding('__tokenpaint', (_src, json) => got.push(JSON.parse(json)));
    await page.addInitScript({ content: inject.toString('utf8') });
    await page.goto(plain.url + p.path);
    await use(page, p);
    const until = Date.now() + 20000;
    const reports = () => got.filter((m) => m.type === 'report').map((m) => m.report);
    while (reports().length < p.turns && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    t.diagnostic(reports().map((r) => `lag p50 ${r.lag?.p50}, matched ${r.matchedPct}%, ${r.element?.selector}`).join('; '));
    await holds(page, p, reports(), 'document');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('extension export: the popup exports the reports and each page load summary; mergeSummary reads them', async () => {
  const p = PAGES[0];
  const page = await ext.page(p.path);
  await ext.turnOn(page);
  await use(page, p);
  await ext.reports(page, p.turns);
  const popup = await ext.popup(page);
  await popup.waitForSelector('#export:not([disabled])');
  const [download] = await Promise.all([popup.waitForEvent('download'), popup.click('#export')]);
  const file = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(file.tokenpaint, 'reports');
  assert.equal(file.source, 'extension');
  assert.equal(file.page, ext.origin);
  assert.ok(file.reports.length >= p.turns && file.reports.every((r) => r.matchedPct >= 99));
  assert.ok(file.summaries.length >= 1);
  // Another page's profiler merges the exported summaries.
  const lab = await plain.harness();
  const merged = await lab.evaluate(async (summaries) => {
    const { Profiler } = await import('/js/index.js');
    const profiler = new Profiler();
    const ok = summaries.map((s) => profiler.mergeSummary(s));
    return { ok, streams: profiler.summary().count };
  }, file.summaries);
  assert.ok(merged.ok.every(Boolean), JSON.stringify(merged));
  assert.equal(merged.streams, file.reports.length);
  // The lab opens the export and draws its last report's figures, and the summary's count.
  const view = await plain.lab();
  await view.setInputFiles('#open', await download.path());
  await view.waitForFunction(() => document.getElementById('report').dataset.source === 'file');
  const drawn = await view.evaluate(() => ({
    verdict: document.getElementById('report').dataset.verdict,
    ttft: Number(document.getElementById('ttft-measured').dataset.value),
    matched: Number(document.getElementById('matched').dataset.value),
    lag: Number(document.getElementById('lag').dataset.value),
    runs: document.getElementById('runs').textContent,
  }));
  const last = file.reports[file.reports.length - 1];
  assert.deepEqual(drawn, { verdict: last.diagnosis[0].verdict, ttft: last.ttft, matched: last.matchedPct, lag: last.lag.p50, runs: `(${file.reports.length} streams)` });
  assert.deepEqual(view.errors, []);
  await view.close();
  await popup.close();
  await page.close();
  await lab.close();
});

test('extension on a strict-CSP page (no WebAssembly allowed): it says why it cannot measure, with no violation and no error', async () => {
  const page = await ext.page('/tests/pages/bare/sse.html?csp=strict');
  await ext.turnOn(page);
  const before = await (await fetch(`${ext.url}/csp-reports`)).json();
  await use(page, PAGES[0]);
  const st = await ext.state(page);
  assert.equal(st.status, 'blocked', JSON.stringify(st));
  assert.match(st.why, /Content-Security-Policy \(script-src\) does not allow WebAssembly/);
  assert.equal(st.reports.length, 0);
  const popup = await ext.popup(page);
  assert.match(await popup.textContent('#status'), /Cannot measure here: the page's Content-Security-Policy/);
  await popup.close();
  assert.match(await overlayText(page), /cannot measure here/);
  await new Promise((r) => setTimeout(r, 300));
  const after = await (await fetch(`${ext.url}/csp-reports`)).json();
  assert.deepEqual(after, before, 'no violation reported by the page');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('extension on a strict-CSP page that allows WebAssembly (Trusted Types required): it measures', async () => {
  const p = PAGES[0];
  const page = await ext.page(`${p.path}?csp=wasm`);
  await ext.turnOn(page);
  await use(page, p);
  const st = await ext.reports(page, p.turns);
  assert.equal(st.status, 'on');
  await holds(page, p, st.reports, 'document');
  assert.deepEqual(page.errors, []);
  await page.close();
});

for (const how of ['wrap', 'native']) {
  test(`extension on a page that replaces fetch as it loads (${how === 'wrap' ? 'a wrapper of the fetch it found' : "a fresh native fetch from an iframe"}): still seen`, async () => {
    const p = { name: `fetch=${how}`, path: `/tests/pages/bare/refetch.html?fetch=${how}`, ask: () => window.send('ttft_ms=50&token_ms=20&tokens=30'), turns: 1, answer: '.msg.assistant' };
    const page = await ext.page(p.path);
    await ext.turnOn(page);
    // The extension looks again once the page has loaded, and a second later.
    await page.waitForTimeout(1500);
    await use(page, p);
    const st = await ext.reports(page, 1);
    await holds(page, p, st.reports, 'document');
    assert.deepEqual(st.notes || [], how === 'native' ? ['fetch-replaced'] : []);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
