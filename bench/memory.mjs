// Memory: what tokenpaint retains per token, and its peak.
// - In Chromium: the same 100,000-token answer (appended to the page token by token) on two
//   pages, without and with tokenpaint. At the end of the body, before the report, the JS heap
//   after a garbage collection (CDP Runtime.getHeapUsage) is compared, and the wasm memory's
//   growth over the stream is read (wasm memory never shrinks: that is the peak).
// - In the core: live heap bytes counted by an allocator wrapper (tests/native/memory.rs).
// - The 200 MB stream: an app reads a 200 MB answer it never renders; wasm memory and the JS
//   heap are sampled along it.
import { execSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';
import { CHROMIUM, ARGS } from '../tests/support/helpers.mjs';

async function heap(cdp) {
  await cdp.send('HeapProfiler.collectGarbage');
  return (await cdp.send('Runtime.getHeapUsage')).usedSize;
}

export async function runMemory({ tokens = 100000, soakMB = 200, log = console.log } = {}) {
  const { server, url } = await startServer({ port: 0 });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const one = async (profile) => {
      const page = await browser.newPage();
      await page.goto(`${url}/bench/pages/chat.html`);
      await page.waitForFunction(() => typeof window.run === 'function');
      const cdp = await page.context().newCDPSession(page);
      const wasm0 = await page.evaluate(async () => (await import('/js/index.js')).wasmMemoryBytes());
      const heap0 = await heap(cdp);
      const done = page.evaluate((a) => window.run(a), { tokens, tokenMs: 0, profile, hold: true });
      await page.waitForFunction(() => window.readDone === true, null, { timeout: 300000, polling: 100 });
      const heap1 = await heap(cdp);
      const wasm1 = await page.evaluate(async () => (await import('/js/index.js')).wasmMemoryBytes());
      await page.evaluate(() => window.proceed());
      const r = await done;
      await page.close();
      return { heap: heap1 - heap0, wasm: wasm1 - wasm0, report: r.report, deltas: r.deltas };
    };
    const without = await one(false);
    const withTp = await one(true);
    if (withTp.deltas !== tokens || withTp.report.deltas !== tokens) throw new Error(JSON.stringify(withTp));
    const jsPerToken = (withTp.heap - without.heap) / tokens;
    const wasmPerToken = withTp.wasm / tokens;
    log(`browser: JS heap +${withTp.heap - without.heap} B, wasm +${withTp.wasm} B over ${tokens} tokens (${withTp.report.records} records kept)`);

    // The core alone, natively: live bytes after a 100,000-token answer.
    let native = null;
    try {
      const out = execSync('cargo test -q --release --test memory -- --nocapture --test-threads=1 2>&1', { encoding: 'utf8' });
      const m = out.match(/retained (\d+) bytes: ([\d.]+) per token/);
      const flat = out.match(/retained after each round: \[([^\]]+)\]/);
      native = { bytes: Number(m[1]), perToken: Number(m[2]), rounds: flat ? flat[1].split(',').map(Number) : [] };
    } catch (e) {
      log(`native memory test failed: ${e.message}`);
    }

    // 200 MB read by an app that never renders it.
    const page = await browser.newPage();
    await page.goto(`${url}/bench/pages/chat.html`);
    await page.waitForFunction(() => typeof window.run === 'function');
    const soak = await page.evaluate(async (mb) => {
      const { Profiler, wasmMemoryBytes } = await import('/js/index.js');
      const p = new Profiler({ timeline: false });
      const report = new Promise((resolve) => p.onReport(resolve));
      const t0 = performance.now();
      const res = await p.fetch(`/v1/chat/completions?body_bytes=${mb * 1e6}&seed=3`, { method: 'POST', body: '{}' });
      const events = Number(res.headers.get('x-body-events'));
      const reader = res.body.getReader();
      let bytes = 0;
      let next = 0;
      const samples = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
        if (bytes >= next) {
          samples.push({ mb: Math.round(bytes / 1e6), wasm: wasmMemoryBytes(), heap: performance.memory ? performance.memory.usedJSHeapSize : null });
          next += mb * 1e6 / 10;
        }
      }
      const r = await report;
      samples.push({ mb: Math.round(bytes / 1e6), wasm: wasmMemoryBytes(), heap: performance.memory ? performance.memory.usedJSHeapSize : null });
      return { bytes, events, seconds: (performance.now() - t0) / 1000, samples, report: { status: r.status, deltas: r.deltas, bytes: r.bytes, records: r.detail.records, decimated: r.detail.decimated } };
    }, soakMB);
    await page.close();
    log(`200 MB: ${soak.report.deltas} deltas, wasm ${soak.samples.map((s) => (s.wasm / 2 ** 20).toFixed(1)).join(' → ')} MiB`);
    return { tokens, without, with: withTp, jsPerToken, wasmPerToken, native, soak };
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await runMemory({ tokens: Number(process.env.TOKENS || 100000), soakMB: Number(process.env.SOAK_MB || 200) });
  console.log(JSON.stringify(r, null, 1));
}
