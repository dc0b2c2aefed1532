// Issue 35: reports as a trace for Perfetto UI and the Chrome Performance panel (tokenpaint/trace).
// Real streams (two at once, one with a server stall and a page that blocks its main thread
// once, from the simulator with vLLM-style timings)
// are exported, and the trace is (1) checked against the Trace Event Format's documented fields
// and (2) parsed by the Chrome Performance panel's own trace engine (@paulirish/trace_engine, the
// DevTools model published on npm), which must find one track per stream with its events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from '../support/helpers.mjs';
import { traceOf } from '../../js/trace.js';

let env;
let reports;
before(async () => {
  env = await setup();
  const page = await env.harness();
  reports = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const { deltas } = await import('/tests/pages/deltas.js');
    const root = document.getElementById('chat');
    const profiler = new Profiler({ settleMs: 300 });
    profiler.observe(root);
    const queries = ['ttft_ms=80&token_ms=15&tokens=40&stall_at=20&stall_ms=400&metrics=vllm&queue_ms=30', 'ttft_ms=50&token_ms=10&tokens=30&seed=7'];
    const done = new Promise((resolve) => {
      const got = [];
      profiler.onReport((r) => got.push(r) === queries.length && resolve(got));
    });
    await Promise.all(
      queries.map(async (q) => {
        const out = document.createElement('div');
        root.append(out);
        const res = await profiler.fetch(`/v1/chat/completions?${q}`, { method: 'POST', body: '{}' });
        let shown = 0;
        for await (const { content } of deltas(res.body)) {
          out.append(content);
          // The page blocks its main thread once, mid-answer: text arrived and not painted.
          if (q.includes('stall') && ++shown === 25) for (const end = performance.now() + 300; performance.now() < end; );
        }
      }),
    );
    return done;
  });
  await page.close();
});
after(() => env.close());

const PH = new Set(['X', 'i', 'C', 'M']);

test("every event has the Trace Event Format's fields, and each stream its own track", () => {
  const trace = traceOf(reports);
  assert.equal(trace.displayTimeUnit, 'ms');
  assert.ok(Array.isArray(trace.traceEvents));
  for (const e of trace.traceEvents) {
    const what = JSON.stringify(e);
    assert.ok(PH.has(e.ph), what);
    assert.equal(typeof e.name, 'string', what);
    assert.ok(Number.isInteger(e.pid) && Number.isInteger(e.tid), what);
    if (e.ph === 'M') {
      assert.ok(['process_name', 'thread_name', 'thread_sort_index'].includes(e.name), what);
      assert.ok(e.args && (typeof e.args.name === 'string' || Number.isInteger(e.args.sort_index)), what);
      continue;
    }
    assert.ok(Number.isInteger(e.ts) && e.ts >= 0, `ts in whole µs: ${what}`);
    if (e.ph === 'X') assert.ok(Number.isInteger(e.dur) && e.dur >= 0, what);
    if (e.ph === 'i') assert.ok(['g', 'p', 't'].includes(e.s), what);
    if (e.ph === 'C') assert.ok(Object.values(e.args).every(Number.isFinite), what);
  }
  for (const [i, r] of reports.entries()) {
    const tid = i + 1;
    const mine = trace.traceEvents.filter((e) => e.tid === tid);
    const names = mine.map((e) => e.name);
    assert.ok(names.includes(`stream ${r.id}`), names.join());
    const stream = mine.find((e) => e.name === `stream ${r.id}`);
    assert.equal(stream.ts, Math.round(r.startTime * 1000));
    // Each known phase, end to end from the start; an unknown one left out.
    const known = r.phases.filter((p) => Number.isFinite(p.ms));
    const phases = mine.filter((e) => e.cat === 'phase');
    assert.deepEqual(phases.map((e) => e.name), known.map((p) => p.name));
    for (let k = 1; k < phases.length; k++) assert.ok(Math.abs(phases[k].ts - (phases[k - 1].ts + phases[k - 1].dur)) <= 1);
    assert.equal(mine.filter((e) => e.name === 'stall').length, r.stalls.list.length);
    for (const key of ['arrived', 'committed', 'painted']) {
      const points = mine.filter((e) => e.ph === 'C' && key in e.args);
      assert.equal(points.length, r.timeline[key].filter(Number.isFinite).length, key);
      assert.equal(points.at(-1).args[key], r.timeline.chars.reduce((a, b) => a + b, 0), `${key}: all characters at the end`);
      for (let k = 1; k < points.length; k++) assert.ok(points[k].ts >= points[k - 1].ts && points[k].args[key] >= points[k - 1].args[key]);
    }
  }
  assert.ok(reports.some((r) => r.stalls.list.length >= 1), 'the stalled stream has a stall to draw');
});

test("the Chrome Performance panel's trace engine reads it: a track per stream, with its stream, phases and stalls", async () => {
  const { analyzeEvents } = await import('@paulirish/trace_engine/analyze-trace.mjs');
  const trace = JSON.parse(JSON.stringify(traceOf(reports)));
  const { parsedTrace } = await analyzeEvents(trace.traceEvents);
  const data = parsedTrace.data || parsedTrace;
  const threads = [...data.Renderer.processes.values()].flatMap((p) => [...p.threads.values()]);
  for (const r of reports) {
    const th = threads.find((t) => t.name === `stream ${r.id} ${r.url}`);
    assert.ok(th, `a track for stream ${r.id}: ${threads.map((t) => t.name)}`);
    const names = th.entries.map((e) => e.name);
    const want = [`stream ${r.id}`, ...r.phases.filter((p) => Number.isFinite(p.ms) && p.ms > 0).map((p) => p.name), ...r.stalls.list.map(() => 'stall')];
    for (const n of want) assert.ok(names.includes(n), `${n} in ${names}`);
    assert.equal(names.filter((n) => n === 'stall').length, r.stalls.list.length);
  }
  // The trace's bounds cover every stream, from its start to its end.
  const first = Math.min(...reports.map((r) => r.startTime));
  assert.ok(data.Meta.traceBounds.min <= Math.round(first * 1000));
});
