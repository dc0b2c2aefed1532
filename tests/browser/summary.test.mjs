// Summaries that merge, labels, SLOs and goodput, web-vitals-style metrics, the Resource
// Timing join and the app's own server-timing mapping, in real Chromium.
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

/** Runs `n` streams through a new profiler with `options`, each with its label and query. */
async function streams(options, list) {
  return page.evaluate(
    async ({ options, list }) => {
      const { Profiler } = await import('/js/index.js');
      const p = new Profiler(options);
      const metrics = [];
      p.onMetric((m) => metrics.push(m));
      const done = new Promise((resolve) => {
        let n = 0;
        p.onReport(() => ++n === list.length && resolve());
      });
      for (const { label, query } of list) {
        const f = label ? p.labeled(label) : p.fetch;
        const res = await f(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
        await res.text();
      }
      await done;
      return { summary: p.summary(), exported: p.exportSummary(), reports: p.reports(), metrics };
    },
    { options, list },
  );
}

test('summaries group by label and format, and merge exactly across profilers', async () => {
  const a = await streams({}, [
    { label: 'fast', query: 'ttft_ms=50&token_ms=5&tokens=5' },
    { label: 'fast', query: 'ttft_ms=60&token_ms=5&tokens=5' },
  ]);
  const b = await streams({}, [{ label: 'slow', query: 'ttft_ms=400&token_ms=5&tokens=5' }]);
  assert.equal(a.summary.by.label.fast.count, 2);
  assert.equal(a.summary.by.format['openai-chat'].count, 2);
  const merged = await page.evaluate(async ({ x, y }) => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler();
    const ok = p.mergeSummary(x) && p.mergeSummary(y);
    const bad = p.mergeSummary('{not a summary');
    return { ok, bad, summary: p.summary() };
  }, { x: a.exported, y: b.exported });
  assert.equal(merged.ok, true);
  assert.equal(merged.bad, false);
  assert.equal(merged.summary.count, 3);
  assert.equal(merged.summary.by.label.slow.count, 1);
  assert.ok(merged.summary.ttft.max >= 400);
});

test('SLO targets hold or not, and goodput is the share of streams meeting all of them', async () => {
  const { summary } = await streams({ slo: { ttft: { p95: 300 } } }, [
    { query: 'ttft_ms=50&token_ms=5&tokens=5' },
    { query: 'ttft_ms=60&token_ms=5&tokens=5' },
    { query: 'ttft_ms=70&token_ms=5&tokens=5' },
    { query: 'ttft_ms=500&token_ms=5&tokens=5' },
  ]);
  assert.equal(summary.slo.length, 1);
  assert.equal(summary.slo[0].metric, 'ttft');
  assert.equal(summary.slo[0].holds, false);
  assert.deepEqual([summary.goodput.met, summary.goodput.of], [3, 4]);
});

test('headline metrics come web-vitals style, rated against thresholds', async () => {
  const { metrics, reports } = await streams({ thresholds: { ttft: [100, 300] } }, [{ query: 'ttft_ms=200&token_ms=5&tokens=5' }]);
  const ttft = metrics.find((m) => m.name === 'ttft');
  assert.equal(ttft.rating, 'needs-improvement');
  assert.equal(ttft.id, reports[0].id);
  assert.ok(ttft.attribution.diagnosis.verdict);
  assert.equal(reports[0].ratings.ttft, 'needs-improvement');
});

test('the Resource Timing entry is joined: the network-side first byte', async () => {
  const { reports } = await streams({}, [{ query: 'ttft_ms=150&token_ms=5&tokens=5' }]);
  const rt = reports[0].resourceTiming;
  assert.ok(rt, JSON.stringify(reports[0].unavailable));
  assert.ok(rt.responseStart > 0 && rt.responseStart <= reports[0].ttfb + 1, `${rt.responseStart} vs ttfb ${reports[0].ttfb}`);
  assert.ok(rt.responseEnd >= rt.responseStart);
});

test("the app's own server-timing mapping becomes server phases", async () => {
  const r = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({
      serverTiming: (res) => {
        const h = res.headers.get('x-sim-timing') || '';
        return Object.fromEntries(h.split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]));
      },
    });
    const done = new Promise((resolve) => p.onReport(resolve));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=120&token_ms=5&tokens=5&queue_ms=80&server_timing=custom', { method: 'POST', body: '{}' });
    await res.text();
    return done;
  });
  const phase = (name) => r.phases.find((p) => p.name === name);
  assert.deepEqual([phase('queue').ms, phase('queue').source], [80, 'server']);
  assert.equal(phase('prefill').ms, 120);
});
