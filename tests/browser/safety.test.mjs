// It never hurts the page it measures: a strict CSP with Trusted Types, failures mid-stream, and
// many concurrent streams.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from '../support/helpers.mjs';

let env;
let page;
before(async () => {
  env = await setup();
  page = await env.harness();
});
after(() => env.close());

test('under a strict CSP and required Trusted Types: a profiled stream, no violation', async () => {
  const p = await env.page('/tests/pages/csp.html');
  await p.waitForFunction(() => window.report, null, { timeout: 15000 });
  const { report, violations } = await p.evaluate(() => ({ report: window.report, violations: window.violations }));
  assert.equal(report.status, 'ok');
  assert.equal(report.matchedPct, 100);
  assert.deepEqual(violations, []);
  const reported = await (await fetch(`${env.url}/csp-reports`)).json();
  assert.deepEqual(reported, []);
  assert.deepEqual(p.errors, []);
  await p.close();
});

const run = (args) => page.evaluate((a) => window.runStream(a), args);

test('a network error mid-stream: status error, what arrived before is kept, the app sees the error', async () => {
  const r = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler();
    const done = new Promise((resolve) => p.onReport(resolve));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=0&token_ms=10&tokens=50&destroy_after=12', { method: 'POST', body: '{}' });
    let appError = null;
    try {
      await res.text();
    } catch (e) {
      appError = e.name;
    }
    const report = await done;
    return { report, appError, open: (await import('/js/profiler.js')).inside(p).streams.size };
  });
  assert.equal(r.appError, 'TypeError', 'the app gets the network error, unchanged');
  assert.equal(r.report.status, 'error');
  assert.equal(r.report.error.kind, 'network');
  assert.ok(r.report.deltas >= 10 && r.report.deltas <= 12, `${r.report.deltas} deltas`);
  assert.equal(r.open, 0, 'nothing left open');
});

test('a server closing early: status incomplete, the partial event discarded', async () => {
  const r = await run({ query: 'ttft_ms=0&token_ms=10&tokens=50&end_after=8' });
  assert.equal(r.status, 'incomplete');
  assert.equal(r.error.kind, 'truncated');
  assert.equal(r.deltas, 8);
  assert.equal(r.truncated, true);
});

test('HTTP 404 and 500: status error with the status code', async () => {
  for (const status of [404, 500]) {
    const r = await run({ query: `status=${status}&ttft_ms=0` });
    assert.equal(r.status, 'error');
    assert.equal(r.error.code, String(status));
  }
});

test('50 concurrent streams on one page, each attributed to its own element', async () => {
  const results = await page.evaluate(() => window.runConcurrentMany(50));
  assert.equal(results.length, 50);
  for (const { length, report } of results) {
    assert.ok(report, `a report for the stream of ${length} characters`);
    assert.equal(report.chars, length);
    assert.equal(report.matchedPct, 100, `stream of ${length}`);
  }
});

test('an app that stops reading: bounded read-ahead, the run reported incomplete, nothing thrown', async (t) => {
  const r = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({ idleMs: 400 });
    const done = new Promise((resolve) => p.onReport(resolve));
    const res = await p.fetch('/v1/chat/completions?body_bytes=33554432', { method: 'POST', body: '{}' });
    const reader = res.body.getReader();
    await reader.read();
    await reader.read(); // then the app stops reading, without cancelling
    const report = await done;
    return { report, open: (await import('/js/profiler.js')).inside(p).streams.size };
  });
  assert.equal(r.report.status, 'incomplete');
  assert.equal(r.report.error.kind, 'not-ended');
  // tokenpaint reads at most 1 MiB ahead of the app; the browser's own body buffering adds some
  // more. What matters: a fraction of a 32 MiB stream, not all of it.
  t.diagnostic(`${r.report.bytes} bytes of 33554432 read for an app that stopped after two reads`);
  assert.ok(r.report.bytes <= 12 * 1024 * 1024, `${r.report.bytes} bytes read ahead of an app that stopped`);
  assert.equal(r.open, 0);
});

test('a panic inside the core mid-stream: the app is untouched, the run failed, later streams profiled again', async () => {
  const r = await page.evaluate(async () => {
    const errors = [];
    window.addEventListener('error', (e) => errors.push(e.message));
    window.addEventListener('unhandledrejection', (e) => errors.push(String(e.reason)));
    const { Profiler } = await import('/js/index.js');
    // The test hook is armed right after the response, before the tap has read ahead.
    const { inside } = await import('/js/profiler.js');
    const p = new Profiler();
    const first = new Promise((resolve) => p.onReport(resolve));
    const res = await p.fetch('/v1/chat/completions?body_bytes=200000&seed=5', { method: 'POST', body: '{}' });
    // Test hook: the next chunk panics inside the core, as a bug would.
    const hub = inside(p);
    hub.link.core.arm_test_trap([...hub.streams][0].id);
    const bytes = await res.arrayBuffer();
    const hex = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const failed = await first;
    const second = new Promise((resolve) => p.onReport(resolve));
    const res2 = await p.fetch('/v1/chat/completions?ttft_ms=0&token_ms=2&tokens=10', { method: 'POST', body: '{}' });
    await res2.text();
    const ok = await second;
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { errors, failed, ok, same: hex === res.headers.get('x-body-sha256') };
  });
  assert.equal(r.same, true, "the app's bytes are the server's");
  assert.deepEqual(r.errors, [], 'nothing reached window.onerror or unhandledrejection');
  assert.equal(r.failed.status, 'failed');
  assert.equal(r.failed.error.kind, 'internal');
  assert.match(r.failed.error.message, /unreachable|panic|RuntimeError/i);
  assert.equal(r.ok.status, 'ok', 'a later stream is profiled again, by a fresh instance');
  assert.equal(r.ok.deltas, 10);
});

test("no network traffic of its own: only the page, its code, its wasm and the app's own fetch", async () => {
  const p = await env.browser.newPage();
  const requests = [];
  p.on('request', (req) => requests.push(req.url()));
  await p.goto(`${env.url}/tests/pages/harness.html`);
  await p.waitForFunction(() => window.harnessReady === true);
  const r = await p.evaluate(() => window.runStream({ query: 'ttft_ms=20&token_ms=5&tokens=20', render: 'immediate' }));
  assert.equal(r.status, 'ok');
  const allowed = /^\/(tests\/pages\/(harness\.(html|js)|deltas\.js)|js\/([a-z]+\/)?[a-z]+\.js|pkg\/tokenpaint_core(_bg\.wasm|\.js)|v1\/chat\/completions\?.*)$/;
  for (const u of requests) {
    const url = new URL(u);
    assert.equal(url.origin, env.url, u);
    assert.match(url.pathname + url.search, allowed, u);
  }
  assert.equal(requests.filter((u) => u.includes('/v1/chat/completions')).length, 1, 'the app fetched once, and only the app');
  await p.close();
});
