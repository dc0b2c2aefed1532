// The Rust API (feature `web`) in real Leptos, Dioxus and Yew apps: examples/{leptos,dioxus,yew}-chat,
// built as a Rust app is (cargo → wasm-bindgen --target web, scripts/build-example.sh), run in
// headless Chromium against the demo server. Each app streams an answer, renders it with its
// framework and shows the typed report's headline figures; it records its own truth (when its
// framework had written each delta's text, in the framework's after-render hook), and exposes the
// same test hooks (examples/kit).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { setup, FRAME } from '../support/helpers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const APPS = { Leptos: 'leptos-chat', Dioxus: 'dioxus-chat', Yew: 'yew-chat' };
const SLACK = 10;
let env;

before(async () => {
  // Seconds when nothing changed (scripts/test.sh built it already); minutes from nothing.
  execFileSync('bash', [path.join(ROOT, 'scripts/build-example.sh')], { stdio: 'inherit' });
  env = await setup();
});
after(() => env.close());

async function open(app) {
  const page = await env.page(`/examples/${app}/dist/index.html`);
  await page.waitForFunction(() => window.appReady === true && typeof window.memory === 'function', null, { timeout: 15000 });
  // The shell's own reports, beside the app's typed ones.
  await page.evaluate(() => {
    window.rawReports = [];
    window.rawProgress = [];
    window.tokenpaintProfiler.onReport((r) => window.rawReports.push(r));
    window.tokenpaintProfiler.onProgress((x) => window.rawProgress.push(x));
  });
  return page;
}

/** JSON without null-valued keys, numbers as numbers: absent and null both mean unknown. */
function unnull(v) {
  if (Array.isArray(v)) return v.map(unnull);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, unnull(x)]));
  return v;
}

for (const [name, app] of Object.entries(APPS)) {
  test(`${name} app, typed report: matched, lag within one frame of the app truth, tokens = usage, headline shown`, async (t) => {
    const page = await open(app);
    await page.evaluate(() => window.send('ttft_ms=50&token_ms=20&tokens=60'));
    await page.waitForFunction(() => window.typedReports.length > 0 && window.rawReports.length > 0, null, { timeout: 20000 });
    const { r, raw, truth, shown, progress, rawProgress } = await page.evaluate(() => ({
      r: window.typedReports[0],
      raw: window.rawReports[0],
      truth: window.truth(),
      shown: Object.fromEntries([...document.querySelectorAll('#headline dd')].map((d) => [d.id, d.textContent])),
      progress: window.typedProgress,
      rawProgress: window.rawProgress,
    }));
    t.diagnostic(`lag p50 ${r.lag?.p50} ms, truth ${truth?.toFixed(1)} ms, matched ${r.matchedPct}%, tokens ${r.tokens} (${r.tokensSource}), verdicts ${r.diagnosis.map((v) => v.verdict)}`);
    assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
    assert.ok(r.ttftPerceived && r.e2ePerceived, 'perceived TTFT and E2E');
    assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `lag p50 ${r.lag.p50} vs truth ${truth}`);
    assert.equal(r.tokens, 60, "the server's usage");
    assert.equal(r.tokensSource, 'usage');
    assert.ok(!r.diagnosis.some((v) => v.verdict === 'insufficient-evidence'), JSON.stringify(r.diagnosis));
    // The page shows the typed report's figures.
    assert.equal(shown.verdict, r.diagnosis[0].verdict);
    assert.equal(shown.tokens, '60');
    assert.equal(shown.matched, `${r.matchedPct.toFixed(1)}%`);
    // Every field of the shell's report came through the Rust types unchanged.
    assert.deepEqual(unnull(r), unnull(raw));
    // The live view reached the app typed, as the shell gave it, several times a second.
    const streaming = progress.filter((x) => !x.ended);
    const seconds = (streaming.at(-1).t - streaming[0].t) / 1000;
    t.diagnostic(`${progress.length} typed progress updates, ${(streaming.length / seconds).toFixed(1)} a second while streaming`);
    assert.ok(streaming.length / seconds >= 4, `${streaming.length} updates in ${seconds} s`);
    assert.deepEqual(progress.map(unnull), rawProgress.map(unnull));
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test(`${name} app: dropping the observe guard unobserves; 200 mount/unmount cycles leak neither wasm memory nor JS heap`, async (t) => {
    const page = await open(app);
    const cdp = await page.context().newCDPSession(page);
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    };
    const cycles = (n) =>
      page.evaluate(async (n) => {
        const frame = () => new Promise((r) => setTimeout(r, 0));
        for (let i = 0; i < 2 * n; i++) {
          window.toggle();
          await frame();
        }
        const hub = (await import('/js/profiler.js')).inside(window.tokenpaintProfiler);
        return { roots: hub.watch.roots.size, listeners: hub.reports.listeners.size, progress: hub.progress.size };
      }, n);
    const state = () =>
      page.evaluate(async () => {
        const hub = (await import('/js/profiler.js')).inside(window.tokenpaintProfiler);
        return { roots: hub.watch.roots.size, listeners: hub.reports.listeners.size, progress: hub.progress.size, mounted: !document.getElementById('unmounted') };
      });

    // Mounted: the list is observed and the app has its report and progress callbacks (and the
    // test its own).
    assert.deepEqual(await state(), { roots: 1, listeners: 2, progress: 2, mounted: true });
    await page.evaluate(() => window.toggle());
    await page.waitForFunction(() => document.getElementById('unmounted'));
    assert.deepEqual(await state(), { roots: 0, listeners: 1, progress: 1, mounted: false }, 'unmounted: guards dropped');
    // Unobserved: a stream now finds none of its text on the page.
    await page.evaluate(() => window.send('ttft_ms=10&token_ms=5&tokens=10'));
    await page.waitForFunction(() => window.rawReports.length > 0, null, { timeout: 20000 });
    const unobserved = await page.evaluate(() => window.rawReports[0]);
    assert.ok(unobserved.unavailable.includes('dom'), `unavailable ${unobserved.unavailable}`);
    await page.evaluate(() => window.toggle());
    await page.waitForFunction(() => !document.getElementById('unmounted'));

    await cycles(20); // warm-up: arenas and caches reach their size
    const m0 = await page.evaluate(() => window.memory());
    const h0 = await heap();
    const end = await cycles(200);
    const m1 = await page.evaluate(() => window.memory());
    const h1 = await heap();
    t.diagnostic(`after 200 cycles: app wasm ${m0.app} → ${m1.app} B, core wasm ${m0.core} → ${m1.core} B, JS heap ${h0} → ${h1} B (${((h1 - h0) / 200).toFixed(0)} B a cycle)`);
    assert.deepEqual(end, { roots: 1, listeners: 2, progress: 2 }, 'mounted again: one observed list, one callback of each');
    assert.equal(m1.app, m0.app, "the app's wasm memory did not grow");
    assert.equal(m1.core, m0.core, "the core's wasm memory did not grow");
    // A leaked element, observer and closures per cycle is several KB a cycle: 200 of them show.
    assert.ok(h1 - h0 < 200 * 1024, `JS heap grew ${h1 - h0} B over 200 cycles`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test(`${name} app: a panic inside tokenpaint mid-stream leaves the app running, its bytes identical, its next render and request working`, async () => {
    const page = await open(app);
    const query = 'ttft_ms=20&token_ms=15&tokens=80';
    const sent = page.evaluate((q) => window.send(q).then(() => true, (e) => String(e)), query);
    await page.evaluate(async () => (window.tokenpaintInside = (await import('/js/profiler.js')).inside));
    await page.waitForFunction(() => window.tokenpaintInside(window.tokenpaintProfiler).streams.size > 0, null, { timeout: 10000 });
    // Test hook: the next chunk panics inside the core, as a bug would.
    await page.evaluate(() => {
      const hub = window.tokenpaintInside(window.tokenpaintProfiler);
      hub.link.core.arm_test_trap([...hub.streams][0].id);
    });
    assert.equal(await sent, true, "the app's stream ended normally");
    await page.waitForFunction(() => window.rawReports.length > 0, null, { timeout: 20000 });
    const r = await page.evaluate(async (q) => {
      // The same answer fetched with the browser's own fetch (the simulated server is deterministic).
      const direct = await (await fetch(`/v1/chat/completions?${q}`, { method: 'POST', body: '{}' })).text();
      return { failed: window.rawReports[0], same: window.appText() === direct, length: direct.length, shown: document.querySelector('.answer').textContent };
    }, query);
    assert.equal(r.failed.status, 'failed');
    assert.equal(r.failed.error.kind, 'internal');
    assert.equal(r.same, true, `the app read the server's ${r.length} bytes exactly`);
    assert.ok(r.shown.length > 100, 'the app rendered the answer');
    // The next request and render: profiled again by a fresh core instance, typed, shown.
    await page.evaluate(() => window.send('ttft_ms=10&token_ms=5&tokens=12'));
    await page.waitForFunction(() => window.typedReports.some((x) => x.status === 'ok'), null, { timeout: 20000 });
    const next = await page.evaluate(() => ({ r: window.typedReports.find((x) => x.status === 'ok'), verdict: document.getElementById('verdict')?.textContent, toggled: [window.toggle(), window.toggle()] }));
    assert.equal(next.r.tokens, 12);
    assert.equal(next.verdict, next.r.diagnosis[0].verdict);
    assert.deepEqual(next.toggled, [false, true], 'the app still mounts and unmounts');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // Issue 36: the typed API's deadline (gloo-timers): `next_report(timeout)` gives the next report,
  // or a timeout error when none comes.
  test(`${name} app: next_report(timeout) resolves with the next report, or says that none came in time`, async () => {
    const page = await open(app);
    const none = await page.evaluate(() => window.nextReport(150));
    assert.equal(none, 'tokenpaint: no report within 150 ms');
    const [ttft] = await Promise.all([page.evaluate(() => window.nextReport(20000)), page.evaluate(() => window.send('ttft_ms=50&token_ms=10&tokens=20'))]);
    await page.waitForFunction(() => window.rawReports.length > 0, null, { timeout: 20000 });
    const raw = await page.evaluate(() => window.rawReports.at(-1));
    assert.equal(ttft, raw.ttft, 'the report it resolved with is the one the shell made');
    assert.ok(ttft > 0);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
