// Issue 47: real chat apps, no code. The traffic of Open WebUI 0.12.4 and Gradio 6.31.0, recorded
// from the installed apps (tests/recordings/, scripts/record-app.mjs), is replayed through real
// transports (a real Socket.IO server, a real SSE response: scripts/app-replays.mjs) into pages
// that stream and render as the apps do (tests/pages/apps/). tokenpaint's injected script (the
// one the extension and tokenpaint/playwright use) is the only instrumentation. Each answer is
// one report, status ok, matched, with perceived TTFT and lag p50 within a frame of the page's
// own truth; the heartbeat, the status messages and the JSON side requests make no report; and
// with the apps' readers off (`appReaders: false`) the answer is learned from the page, with the
// same figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setup, FRAME } from '../support/helpers.mjs';
import { overlayText } from '../support/extension.mjs';
import { buildInject } from '../../scripts/build-extension.mjs';

// The page's truth is its own after-paint mark; tokenpaint's paint is the frame's, and their
// times differ by the scheduling of the mark's task.
const SLACK = 10;
const TURNS = 2;

const APPS = [
  {
    name: 'Open WebUI 0.12.4',
    path: '/tests/pages/apps/open-webui.html',
    reader: 'open-webui',
    transport: 'socket.io',
    learned: /^events\/data\[type=response:completion\]\/data\[type=response\.output_text\.delta\]\/delta$/,
  },
  {
    name: 'Gradio 6.31.0',
    path: '/tests/pages/apps/gradio.html',
    reader: 'gradio',
    transport: 'fetch',
    learned: /^\[msg=process_generating\]\/output\/data\/1\/1\[role=assistant\]\/content\/0\[type=text\]\/text$/,
  },
];

let env;
let inject;
before(async () => {
  inject = readFileSync(await buildInject(), 'utf8');
  env = await setup();
});
after(() => env.close());

/** The page, with the injected script (and the profiler's options, if any) before its own. */
async function open(app, options) {
  const page = await env.browser.newPage();
  const got = [];
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.exposeBinding('__tokenpaint', (_src, json) => got.push(JSON.parse(json)));
  if (options) await page.addInitScript((o) => (globalThis.tokenpaintOptions = o), options);
  await page.addInitScript({ content: inject });
  await page.goto(env.url + app.path);
  await page.waitForFunction(() => window.appReady === true, null, { timeout: 15000 });
  page.reports = () => got.filter((m) => m.type === 'report').map((m) => m.report);
  return page;
}

/** Asks TURNS questions, one after another; waits for a report of each (and a little longer). */
async function use(page) {
  for (let i = 0; i < TURNS; i++) await page.evaluate(() => window.send());
  for (const until = Date.now() + 20000; page.reports().length < TURNS && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
  // A report that should not come (the heartbeat, a side request) would come by now.
  await new Promise((r) => setTimeout(r, 1500));
  return page.reports();
}

async function holds(t, page, app, reports, read) {
  t.diagnostic(reports.map((r) => `${r.format} ${JSON.stringify(r.read)}: ttft perceived ${r.ttftPerceived?.painted}, lag p50 ${r.lag?.p50}, matched ${r.matchedPct}%, ${r.status}, ${r.url}`).join('\n'));
  assert.equal(reports.length, TURNS, `${app.name}: one report per answer, and none else`);
  for (const [i, r] of reports.entries()) {
    const what = `${app.name}, answer ${i + 1}`;
    const [lag, first] = await page.evaluate((n) => [window.truth(n), window.firstPaint(n)], i);
    t.diagnostic(`${what}: the page's own lag p50 ${lag?.toFixed(1)} ms, first paint ${first?.toFixed(1)} ms after its ask`);
    assert.equal(r.status, 'ok', `${what}: ${JSON.stringify(r.error)}`);
    assert.equal(r.transport, app.transport);
    read(r, what);
    assert.ok(r.matchedPct >= 99, `${what}: matched ${r.matchedPct}`);
    assert.ok(r.lag.p50 >= lag - SLACK && r.lag.p50 <= lag + FRAME + SLACK, `${what}: lag p50 ${r.lag.p50} vs the page's ${lag}`);
    const perceived = r.ttftPerceived && r.ttftPerceived.painted;
    assert.ok(perceived >= first - SLACK && perceived <= first + FRAME + SLACK, `${what}: perceived TTFT ${perceived} vs the page's ${first}`);
    assert.ok(!r.diagnosis.some((d) => /buffer/.test(d.verdict)), `${what}: ${r.diagnosis.map((d) => d.verdict)}`);
    assert.equal(r.deltas > 0 && r.element && r.element.how, 'document', `${what}: ${JSON.stringify(r.element)}`);
  }
  // The overlay shows the last answer, not a heartbeat or status stream as streaming.
  const shown = await overlayText(page);
  assert.ok(shown && shown.includes(`ok, ${reports[TURNS - 1].tokens} tokens`), shown);
  assert.deepEqual(page.errors, []);
}

for (const app of APPS) {
  test(`${app.name}, replayed, no code: one report per answer, read by its reader, within a frame of the page's truth; nothing else reported`, async (t) => {
    const page = await open(app);
    const reports = await use(page);
    await holds(t, page, app, reports, (r, what) => {
      assert.deepEqual(r.read, { by: 'reader', format: app.reader, end: 'marker' }, what);
      assert.equal(r.format, app.reader, what);
    });
    await page.close();
  });

  test(`${app.name}, replayed, its reader off: the answer is learned from the page, with the same figures`, async (t) => {
    const page = await open(app, { appReaders: false });
    const reports = await use(page);
    await holds(t, page, app, reports, (r, what) => {
      assert.equal(r.read && r.read.by, 'learned', `${what}: ${JSON.stringify(r.read)}`);
      assert.match(r.read.path, app.learned, what);
      assert.equal(r.format, 'learned', what);
    });
    await page.close();
  });
}

test("an answer no stream carries in a readable form: one report that says so, with what was seen; the overlay says it cannot read the app's stream", async (t) => {
  const page = await open({ path: '/tests/pages/apps/unreadable.html' });
  await page.evaluate(() => window.send());
  for (const until = Date.now() + 10000; page.reports().length < 1 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  const reports = page.reports();
  t.diagnostic(JSON.stringify(reports.map((r) => ({ status: r.status, read: r.read, element: r.element, error: r.error }))));
  assert.equal(reports.length, 1, 'one report, for the answer');
  const [r] = reports;
  assert.equal(r.read.by, 'none');
  assert.match(r.read.why, /cannot read this app's stream/);
  assert.deepEqual(r.read.seen.map((x) => [x.url, x.transport, x.events > 0]), [[`${env.url}/unreadable/stream`, 'fetch', true]]);
  assert.equal(r.error.kind, 'unread');
  assert.equal(r.ttft, null);
  assert.equal(r.lag, null);
  assert.equal(r.diagnosis[0].verdict, 'insufficient-evidence');
  assert.deepEqual(r.diagnosis[0].missing, ['stream']);
  assert.ok(!r.diagnosis.some((d) => d.verdict === 'healthy'));
  assert.match(await overlayText(page), /cannot read this app's stream/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a page that shows other text than its stream carries (issue 71): the best reading named with its match, insufficient-evidence, and every timing figure null', async (t) => {
  const page = await open({ path: '/tests/pages/apps/unreadable.html' }, { includeText: true, timeline: true });
  const shown = await page.evaluate(() => window.sendOther());
  for (const until = Date.now() + 10000; page.reports().length < 1 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  const reports = page.reports();
  t.diagnostic(JSON.stringify(reports.map((r) => ({ status: r.status, read: r.read, matched: r.matchedPct, diagnosis: r.diagnosis, ttft: r.ttft }))));
  assert.equal(reports.length, 1, 'one report, for the answer');
  const [r] = reports;
  assert.equal(r.read.by, 'learned');
  assert.equal(r.read.path, '[kind=part]/text', 'the best reading tried is named');
  assert.equal(r.read.mode, 'delta');
  assert.ok(r.matchedPct < 99 && r.matchedPct > 0, `its match: ${r.matchedPct}% (the page showed ${JSON.stringify(shown.slice(0, 60))})`);
  assert.equal(r.diagnosis.length, 1);
  assert.equal(r.diagnosis[0].verdict, 'insufficient-evidence');
  assert.deepEqual(r.diagnosis[0].missing, ['reading']);
  assert.equal(r.diagnosis[0].evidence.matchedPct, r.matchedPct);
  assert.match(r.diagnosis[0].fix, /another text than the reading/);
  for (const k of ['ttfb', 'ttft', 'e2e', 'tpot', 'itl', 'lag', 'ttftPerceived', 'e2ePerceived', 'phases', 'stalls', 'backlogPeak', 'delivery']) assert.equal(r[k], null, `${k}: ${JSON.stringify(r[k])}`);
  assert.equal(r.timeline, undefined, 'no per-token times');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("an answer that grows after the user's Enter with no stream or socket that could carry it: a read.by 'none' report within 5 s of the page's last change", async (t) => {
  const page = await open({ path: '/tests/pages/apps/unreadable.html#local' });
  await page.locator('#prompt').press('Enter');
  for (const until = Date.now() + 10000; page.reports().length < 1 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
  const arrived = await page.evaluate(() => performance.now());
  const last = await page.evaluate(() => window.lastChange);
  await new Promise((r) => setTimeout(r, 500));
  const reports = page.reports();
  t.diagnostic(JSON.stringify(reports.map((r) => ({ status: r.status, read: r.read, start: r.start }))) + ` ${(arrived - last).toFixed(0)} ms after the last change`);
  assert.equal(reports.length, 1, 'one report, for the answer');
  const [r] = reports;
  assert.equal(r.read.by, 'none');
  assert.deepEqual(r.read.seen, []);
  assert.match(r.read.why, /saw no stream or socket that could carry it/);
  assert.equal(r.diagnosis[0].verdict, 'insufficient-evidence');
  assert.ok(arrived - last <= 5000, `${arrived - last} ms after the page's last change`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
