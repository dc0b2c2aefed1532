// Sampling and the lazy stub (issue 17), in real Chromium over real sockets. With sampleRate 0
// a page downloads no wasm and no more of tokenpaint than it imported, makes no
// MutationObserver, gets the very response object its fetch returned, and reads the same bytes.
// With sampleRate 1 the stub loads the profiler at idle or at the first stream, and a stream that
// began before it loaded is still profiled in full.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from '../support/helpers.mjs';

let env;
before(async () => {
  env = await setup();
});
after(() => env.close());

async function open(query) {
  const page = await env.page(`/tests/pages/sampling.html?${query}`);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.waitForFunction(() => window.samplingReady === true, null, { timeout: 15000 });
  return { page, requests };
}

for (const entry of ['lazy', 'full']) {
  test(`sampleRate 0 (${entry} entry): no wasm, no observer, the app's own response, the same bytes`, async (t) => {
    const { page, requests } = await open(`entry=${entry}&rate=0`);
    for (const via of ['fetch', 'track']) {
      const r = await page.evaluate((v) => window.runAnswer({ via: v, waitReport: false }), via);
      assert.equal(r.identical, true, `${via}: the response object is the app's own`);
      assert.equal(r.sameBytes, true, `${via}: byte-identical`);
      assert.ok(r.bytes > 1000 && r.shown > 50, `${via}: an answer was read (${r.bytes} B)`);
    }
    await page.evaluate(() => window.idle());
    const l = await page.evaluate(() => window.loaded());
    const all = [...new Set([...requests, ...l.scripts])];
    t.diagnostic(`loaded: ${all.filter((p) => p.startsWith('/js/') || p.startsWith('/pkg/')).join(', ')}`);
    assert.equal(l.sampled, false);
    assert.equal(l.sampleRate, 0);
    assert.equal(l.observers, 0, 'no MutationObserver');
    assert.ok(!all.some((p) => p.endsWith('.wasm')), 'no wasm request');
    if (entry === 'lazy') {
      // The stub and what it imports, nothing else of tokenpaint (js/words.js: the end codes the
      // tap passes, which a bundler inlines; unbundled, a module of constants).
      const ours = all.filter((p) => p.startsWith('/js/') || p.startsWith('/pkg/')).sort();
      assert.deepEqual(ours, ['/js/lazy.js', '/js/sample.js', '/js/transports/tap.js', '/js/words.js']);
    }
    assert.equal(l.reports, 0);
    assert.equal(l.summary, null);
    await page.close();
  });
}

test('lazy entry: a fetch begun before the profiler loaded whose response comes after is handed over and profiled', async (t) => {
  const { page } = await open('entry=lazy&rate=1&adopt=1');
  const r = await page.evaluate(() => window.earlyRun);
  t.diagnostic(`status ${r.report && r.report.status}, deltas ${r.report && r.report.deltas}, matched ${r.report && r.report.matchedPct}%`);
  assert.equal(r.early, true, 'the stream began before the profiler was loaded');
  assert.equal(r.identical, false, 'the response was wrapped');
  assert.equal(r.sameBytes, true, 'byte-identical');
  assert.equal(r.report.status, 'ok');
  assert.equal(r.report.deltas, 30);
  assert.ok(r.report.matchedPct >= 99, `matched ${r.report.matchedPct}`);
  await page.close();
});

test('sampleRate 1 (lazy entry): a stream that starts before the profiler loaded is profiled in full', async (t) => {
  const { page, requests } = await open('entry=lazy&rate=1&early=1');
  // Started as the page loaded: the stub has not loaded the profiler yet (it waits for idle or
  // a stream).
  const r = await page.evaluate(() => window.earlyRun);
  assert.equal(r.early, true, 'the stream began before the profiler was loaded');
  assert.equal(r.sameBytes, true, 'byte-identical');
  assert.ok(r.shown > 100, `the app showed the answer (${r.shown} characters)`);
  // Commits made before the profiler was there are read at its load and said to be late.
  if (r.report.caughtUp) assert.ok(r.report.caughtUp.tokens >= 0 && r.report.caughtUp.at > 0);
  assert.ok(r.report, 'a report');
  t.diagnostic(`status ${r.report.status}, deltas ${r.report.deltas}, matched ${r.report.matchedPct}%, ttft ${r.report.ttft} ms, unavailable ${r.report.unavailable}`);
  assert.equal(r.report.status, 'ok');
  assert.equal(r.report.deltas, 30);
  assert.equal(r.report.sampleRate, 1);
  assert.ok(r.report.ttft >= 30, `ttft ${r.report.ttft} (the server waits 30 ms)`);
  assert.ok(r.report.matchedPct >= 99, `matched ${r.report.matchedPct}`);
  assert.ok(requests.some((p) => p.endsWith('.wasm')), 'the wasm was loaded');
  // Once loaded, streams go straight through the profiler, as with the full entry.
  const r2 = await page.evaluate(() => window.runAnswer({ via: 'track' }));
  assert.equal(r2.sameBytes, true);
  assert.equal(r2.report.status, 'ok');
  assert.equal(r2.report.deltas, 30);
  assert.ok(r2.report.matchedPct >= 99);
  const l = await page.evaluate(() => window.loaded());
  assert.equal(l.summary.sampleRate, 1);
  assert.equal(l.summary.weighted, false);
  assert.equal(l.summary.count, 2);
  await page.close();
});

test('sampleRate 1 (lazy entry): with no stream, the profiler and its wasm load once the page is idle', async () => {
  const { page, requests } = await open('entry=lazy&rate=1');
  assert.equal(await page.evaluate(() => window.readyProfiler()), true);
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('.wasm')), null, { timeout: 10000 });
  assert.ok(requests.includes('/js/profiler.js'));
  const r = await page.evaluate(() => window.runAnswer({ via: 'fetch' }));
  assert.equal(r.report.status, 'ok');
  assert.equal(r.report.deltas, 30);
  assert.ok(r.report.matchedPct >= 99);
  await page.close();
});

test('streamSampleRate: each stream drawn on its own; one left out is the app\'s own response and makes no report', async (t) => {
  for (const [srate, n] of [[0, 4], [1, 4], [0.5, 16]]) {
    const { page } = await open(`entry=full&rate=1&srate=${srate}`);
    const r = await page.evaluate((k) => window.runMany(k), n);
    t.diagnostic(`streamSampleRate ${srate}: ${r.own} of ${n} left out, ${r.reports} reports, rates ${r.rates}`);
    assert.equal(r.reports, n - r.own, 'one report per profiled stream, none for the others');
    assert.equal(r.ok, r.reports, 'every profiled stream reported in full');
    if (srate === 0) assert.equal(r.own, n);
    if (srate === 1) assert.equal(r.own, 0);
    // 16 draws at 0.5: all alike has a chance of 1 in 32,768.
    if (srate === 0.5) assert.ok(r.own > 0 && r.own < n, `${r.own} of ${n}`);
    if (r.reports) assert.deepEqual(r.rates, [srate]);
    if (r.reports) assert.equal(r.summaryRate, srate, 'the summary counts in units of that rate');
    await page.close();
  }
});
