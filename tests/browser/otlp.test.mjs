// OTLP export: a local collector receives the payloads; each is validated with the official
// OpenTelemetry protobuf definitions (opentelemetry-proto's generated classes, protobuf JSON
// mapping) by scripts/otlp_validate.py, not by a schema written here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { setup } from '../support/helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-otlp-'));
let env;
let collector;
let collectorUrl;
const received = [];

function validate(kind, body) {
  const file = path.join(dir, `${kind}-${received.length}.json`);
  writeFileSync(file, body);
  return Number(execFileSync('python3', [path.join(root, 'scripts', 'otlp_validate.py'), kind, file], { encoding: 'utf8' }).trim());
}

before(async () => {
  env = await setup({ otel: true });
  collector = createServer(async (req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type', 'access-control-allow-methods': 'POST, OPTIONS' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      return res.end();
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    received.push({ path: req.url, type: req.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200, { ...cors, 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise((r) => collector.listen(0, '127.0.0.1', r));
  collectorUrl = `http://127.0.0.1:${collector.address().port}`;
});
after(async () => {
  collector.close();
  await env.close();
});

const waitFor = async (pred, ms = 5000) => {
  const until = Date.now() + ms;
  while (!pred() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
};

// The GenAI client metrics as the OpenTelemetry semantic conventions define them
// (docs/gen-ai/gen-ai-metrics.md, client inference): unit, bucket advice, required attributes.
const SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const OPERATION = ['gen_ai.operation.name', 'gen_ai.provider.name'];
const GENAI = {
  'gen_ai.client.operation.duration': { unit: 's', buckets: SECONDS, required: OPERATION },
  'gen_ai.client.operation.time_to_first_chunk': { unit: 's', buckets: SECONDS, required: OPERATION },
  'gen_ai.client.operation.time_per_output_chunk': { unit: 's', buckets: SECONDS, required: OPERATION },
  'gen_ai.client.token.usage': { unit: '{token}', buckets: TOKENS, required: [...OPERATION, 'gen_ai.token.type'] },
};
// Attribute namespaces a span or metric may use: the conventions' own, and tokenpaint's.
const NAMESPACES = /^(gen_ai|server|url|http|error|tokenpaint)\./;

const valueOf = (v) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.doubleValue ?? v.boolValue ?? v.arrayValue);
const attrMap = (list) => Object.fromEntries((list || []).map((a) => [a.key, valueOf(a.value)]));
const metricsIn = (bodies) => bodies.flatMap((b) => JSON.parse(b).resourceMetrics.flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics.map((m) => ({ ...m, resource: attrMap(rm.resource.attributes) })))));
const spansIn = (bodies) => bodies.flatMap((b) => JSON.parse(b).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));

test('GenAI client metrics as the conventions define them (names, units in s, buckets, required attributes), delta temporality, one instance id per page; spans in gen_ai.* and tokenpaint.*; valid OTLP', async () => {
  const page = await env.harness();
  received.length = 0;
  const r = await page.evaluate(
    (url) => window.runStream({ query: 'ttft_ms=80&token_ms=10&tokens=25&metrics=vllm&queue_ms=20', options: { otlp: { url, intervalMs: 60000 } } }),
    collectorUrl,
  );
  await waitFor(() => received.length >= 2);
  const traces = received.filter((x) => x.path === '/v1/traces');
  const metrics = received.filter((x) => x.path === '/v1/metrics');
  assert.ok(traces.length && metrics.length, JSON.stringify(received.map((x) => x.path)));
  for (const t of traces) assert.ok(validate('traces', t.body) > 0);
  for (const m of metrics) assert.ok(validate('metrics', m.body) > 0);
  const all = metricsIn(metrics.map((m) => m.body));
  for (const [name, want] of Object.entries(GENAI)) {
    const m = all.find((x) => x.name === name);
    assert.ok(m, `${name} exported`);
    assert.equal(m.unit, want.unit, name);
    assert.equal(m.histogram.aggregationTemporality, 1, `${name}: delta`);
    for (const p of m.histogram.dataPoints) {
      assert.deepEqual(p.explicitBounds, want.buckets, `${name}: bucket advice`);
      const a = attrMap(p.attributes);
      for (const k of want.required) assert.ok(a[k], `${name}: ${k}`);
      assert.equal(a['gen_ai.request.model'], 'tokenpaint-sim', `${name}: the requested model`);
      assert.equal(a['gen_ai.provider.name'], 'openai');
      assert.ok(a['server.address'] && a['server.port'] > 0, `${name}: server.port with server.address`);
    }
  }
  const duration = all.find((x) => x.name === 'gen_ai.client.operation.duration').histogram.dataPoints[0];
  assert.equal(duration.count, '1');
  // The whole operation, to the end of the body (the usage chunk and [DONE] after the last answer
  // chunk included): the report's bodyEnd, not its e2e.
  assert.ok(r.bodyEnd >= r.e2e, `bodyEnd ${r.bodyEnd} ≥ e2e ${r.e2e}`);
  assert.ok(Math.abs(duration.sum - r.bodyEnd / 1000) < 1e-4, `${duration.sum} s vs bodyEnd ${r.bodyEnd} ms`);
  const ttfc = all.find((x) => x.name === 'gen_ai.client.operation.time_to_first_chunk').histogram.dataPoints[0];
  assert.ok(Math.abs(ttfc.sum - r.ttfc / 1000) < 1e-4);
  const chunks = all.find((x) => x.name === 'gen_ai.client.operation.time_per_output_chunk').histogram.dataPoints[0];
  assert.equal(Number(chunks.count), r.timeline.arrived.length - 1, 'one per chunk after the first');
  const usage = all.find((x) => x.name === 'gen_ai.client.token.usage').histogram.dataPoints.map((p) => [attrMap(p.attributes)['gen_ai.token.type'], p.sum]);
  assert.deepEqual(Object.fromEntries(usage), { input: r.usage.promptTokens, output: r.usage.completionTokens });
  for (const m of all) assert.match(m.name, /^(gen_ai\.client\.|tokenpaint\.)/, 'no invented gen_ai.* name');
  // The perceived TTFT is exported when the report has one, with its value; a report without it
  // (no painted frame seen: a fresh run with both cores spun once gave one) says what it lacked.
  const perceived = all.find((x) => x.name === 'tokenpaint.ttft.perceived');
  const seen = `ttftPerceived ${JSON.stringify(r.ttftPerceived)}, unavailable ${r.unavailable}, domReason ${r.domReason}, matched ${r.matchedPct}%`;
  if (Number.isFinite(r.ttftPerceived?.painted)) {
    assert.ok(perceived, `tokenpaint.ttft.perceived: ${seen}`);
    assert.ok(Math.abs(perceived.histogram.dataPoints[0].sum - r.ttftPerceived.painted / 1000) < 1e-4, seen);
  } else {
    assert.ok(!perceived, `no perceived TTFT, none exported: ${seen}`);
    assert.ok(r.unavailable.includes('paint') || r.domReason, `a report without a painted first token says why: ${seen}`);
  }
  assert.match(all[0].resource['service.instance.id'], /^[0-9a-f-]{32,36}$/);

  const spans = spansIn(traces.map((t) => t.body));
  const root = spans.find((s) => !s.parentSpanId);
  assert.equal(root.name, 'chat tokenpaint-sim', '{gen_ai.operation.name} {gen_ai.request.model}');
  assert.equal(root.kind, 3, 'CLIENT');
  const a = attrMap(root.attributes);
  assert.ok(Math.abs(a['gen_ai.response.time_to_first_chunk'] - r.ttfc / 1000) < 1e-4);
  assert.equal(a['gen_ai.usage.output_tokens'], r.usage.completionTokens);
  for (const s of spans) for (const k of Object.keys(attrMap(s.attributes))) assert.match(k, NAMESPACES, `span attribute ${k}`);
  assert.deepEqual(root.events.map((e) => e.name), ['tokenpaint.first_token', ...(perceived ? ['tokenpaint.first_paint'] : [])], seen);
  const phases = spans.filter((s) => s.parentSpanId === root.spanId).map((s) => s.name);
  assert.deepEqual(phases.slice(0, 3), ['tokenpaint.phase.queue', 'tokenpaint.phase.prefill', 'tokenpaint.phase.network']);
  assert.ok(spans.every((s) => s.traceId === root.traceId));
  assert.ok(!traces.some((t) => t.body.includes('Tokens') || t.body.includes('answer')), 'no answer text is exported');
  await page.close();
});

test('once detail is decimated, no gaps between runs are exported as chunk times', async () => {
  const page = await env.harness();
  received.length = 0;
  const r = await page.evaluate(
    (url) => window.runStream({ query: 'ttft_ms=40&token_ms=2&tokens=200', options: { maxTokenDetail: 64, otlp: { url, intervalMs: 60000 } } }),
    collectorUrl,
  );
  await waitFor(() => received.some((x) => x.path === '/v1/metrics'));
  assert.ok(r.detail.decimated, 'the detail was decimated');
  const all = metricsIn(received.filter((x) => x.path === '/v1/metrics').map((m) => m.body));
  assert.ok(all.find((x) => x.name === 'gen_ai.client.operation.duration'), 'the stream was exported');
  const chunks = all.find((x) => x.name === 'gen_ai.client.operation.time_per_output_chunk');
  assert.ok(!chunks || chunks.histogram.dataPoints.every((p) => Number(p.count) === 0), `gaps between runs exported: ${JSON.stringify(chunks?.histogram.dataPoints.map((p) => p.count))}`);
  await page.close();
});

test('two pages export, one merges the other summary: the collector counts each stream once', async () => {
  received.length = 0;
  const run = (page, n) =>
    page.evaluate(
      async ({ url, n }) => {
        const { Profiler } = await import('/js/index.js');
        const p = new Profiler({ otlp: { url, intervalMs: 60000 } });
        window.p = p;
        for (let i = 0; i < n; i++) {
          const done = new Promise((r) => p.onReport(r));
          const res = await p.fetch('/v1/chat/completions?ttft_ms=10&token_ms=2&tokens=5', { method: 'POST', body: '{}' });
          await res.text();
          await done;
        }
        await p.flush();
        return p.exportSummary();
      },
      { url: collectorUrl, n },
    );
  const a = await env.harness();
  const b = await env.harness();
  await run(a, 2);
  const fromB = await run(b, 3);
  const merged = await a.evaluate(async (x) => {
    const ok = window.p.mergeSummary(x);
    await window.p.flush();
    window.p.disconnect();
    return { ok, count: window.p.summary().count };
  }, fromB);
  await b.evaluate(() => window.p.disconnect());
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(merged, { ok: true, count: 5 }, "page A's summary holds both pages' streams");
  const points = metricsIn(received.filter((x) => x.path === '/v1/metrics').map((x) => x.body))
    .filter((m) => m.name === 'gen_ai.client.operation.duration')
    .flatMap((m) => m.histogram.dataPoints);
  const total = points.reduce((n, p) => n + Number(p.count), 0);
  assert.equal(total, 5, `the collector's count of streams (${points.length} points)`);
  const instances = new Set(metricsIn(received.filter((x) => x.path === '/v1/metrics').map((x) => x.body)).map((m) => m.resource['service.instance.id']));
  assert.equal(instances.size, 2, 'one service.instance.id per page');
  await a.close();
  await b.close();
});

test('trace propagation: the server span (OpenTelemetry SDK for Node) is a child of the browser stream span; a request that does not match carries no traceparent', async () => {
  received.length = 0;
  const page = await env.harness();
  await page.evaluate(async (url) => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({ otlp: { url, intervalMs: 60000, propagate: /[?&]join=1/ } });
    await (await import('/js/profiler.js')).inside(p).otlp.ready; // the OpenTelemetry chunk, loaded as the profiler starts
    for (const join of [1, 0]) {
      const done = new Promise((r) => p.onReport(r));
      const res = await p.fetch(`/v1/chat/completions?ttft_ms=10&token_ms=2&tokens=5&join=${join}`, { method: 'POST', headers: { 'x-app': 'kept' }, body: '{"model":"m1"}' });
      await res.text();
      await done;
    }
    await p.flush();
  }, collectorUrl);
  await waitFor(() => received.some((x) => x.path === '/v1/traces'));
  const server = await (await fetch(`${env.url}/__otel`)).json();
  const joined = server.requests.find((q) => q.url.includes('join=1'));
  const plain = server.requests.find((q) => q.url.includes('join=0'));
  assert.match(joined.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.equal(plain.traceparent, null, 'no traceparent on a request that does not match');
  const [, traceId, parentId] = joined.traceparent.split('-');
  const serverSpan = server.spans.find((s) => s.traceId === traceId);
  assert.ok(serverSpan, 'the server recorded a span in the same trace');
  assert.equal(serverSpan.parentSpanId, parentId);
  const browser = spansIn(received.filter((x) => x.path === '/v1/traces').map((x) => x.body));
  const streamSpan = browser.find((s) => s.spanId === parentId);
  assert.ok(streamSpan, "the server span's parent is a span the browser exported");
  assert.equal(streamSpan.traceId, traceId);
  assert.equal(streamSpan.name, 'chat m1');
  assert.equal(browser.filter((s) => !s.parentSpanId).length, 2, 'both streams exported');
  await page.close();
});

test("a page with its own OpenTelemetry SDK: tokenpaint's spans and metrics come out of that SDK, and its traceparent joins the server's span", async () => {
  const { build } = await import('esbuild');
  await build({ entryPoints: [path.join(root, 'tests/pages/otel-sdk.js')], outfile: path.join(root, 'tests/pages/otel-sdk.bundle.js'), bundle: true, format: 'esm', target: 'es2022', logLevel: 'error' });
  received.length = 0;
  const page = await env.page('/tests/pages/otel-sdk.html');
  await page.waitForFunction(() => window.otelReady === true);
  const r = await page.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({ otlp: { propagate: /join=sdk/ } });
    await (await import('/js/profiler.js')).inside(p).otlp.ready;
    p.observe(document.getElementById('chat'));
    const done = new Promise((res) => p.onReport(res));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=20&token_ms=5&tokens=12&metrics=vllm&join=sdk', { method: 'POST', body: '{"model":"m2"}' });
    const text = await res.text();
    document.getElementById('chat').textContent = text.length ? 'done' : '';
    const report = await done;
    return { report, dump: await window.otelDump() };
  });
  const { spans, metrics } = r.dump;
  const top = spans.find((s) => s.name === 'chat m2');
  assert.ok(top, spans.map((s) => s.name).join(', '));
  assert.equal(top.kind, 2, 'SpanKind.CLIENT');
  assert.equal(top.attributes['gen_ai.operation.name'], 'chat');
  assert.equal(top.attributes['gen_ai.request.model'], 'm2');
  assert.deepEqual(top.events, ['tokenpaint.first_token']);
  assert.ok(spans.some((s) => s.parentSpanId === top.spanId && s.name.startsWith('tokenpaint.phase.')), 'phase spans under it');
  const duration = metrics.find((m) => m.name === 'gen_ai.client.operation.duration');
  assert.ok(duration, metrics.map((m) => m.name).join(', '));
  assert.equal(duration.scope, 'tokenpaint');
  assert.equal(duration.unit, 's');
  assert.deepEqual(duration.boundaries, SECONDS, 'the bucket advice reached the SDK');
  assert.equal(duration.points[0].count, 1);
  assert.equal(duration.points[0].attributes['gen_ai.request.model'], 'm2');
  assert.equal(received.length, 0, 'nothing went to any collector of its own');
  const server = await (await fetch(`${env.url}/__otel`)).json();
  const serverSpan = server.spans.find((s) => s.traceId === top.traceId);
  assert.ok(serverSpan && serverSpan.parentSpanId === top.spanId, 'the server span is a child of the SDK span');
  assert.deepEqual(page.errors, []);
  assert.equal(r.report.status, 'ok');
  await page.close();
});

/** One answer profiled on `page` with an exporter that batches for a minute. */
const batchOne = (page) =>
  page.evaluate(async (url) => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({ otlp: { url, intervalMs: 60000 } });
    window.keep = p;
    const done = new Promise((r) => p.onReport(r));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=30&token_ms=5&tokens=10', { method: 'POST', body: '{}' });
    await res.text();
    await done;
  }, collectorUrl);

test('what is batched is sent on pagehide', async () => {
  const page = await env.harness();
  received.length = 0;
  await batchOne(page);
  assert.equal(received.length, 0, 'nothing sent yet: batched');
  await page.goto('about:blank');
  // A wait, not a measurement: on a loaded machine the beacon took longer than 5 s to arrive.
  await waitFor(() => received.some((x) => x.path === '/v1/traces'), 20000);
  const traces = received.find((x) => x.path === '/v1/traces');
  assert.ok(traces, 'sent on pagehide');
  assert.ok(validate('traces', traces.body) > 0);
  await page.close();
});

// A page hidden (a tab switched away, a phone's browser sent to the background) may be ended by
// the system without a pagehide: what is batched is sent when it is hidden. Headless Chromium
// never hides a page (see renderers.test.mjs), so the test sets the state and fires the event.
test('what is batched is sent when the page is hidden, before any pagehide', async () => {
  const page = await env.harness();
  received.length = 0;
  await batchOne(page);
  // The exporter's chunk loads after the first report: until it has, nothing can be sent.
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/js/export/otlp.js')));
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(received.length, 0, 'nothing sent yet: batched');
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await waitFor(() => received.some((x) => x.path === '/v1/traces'), 20000);
  assert.ok(validate('traces', received.find((x) => x.path === '/v1/traces').body) > 0);
  await page.close();
});

// Issue 48: a page left before the exporter's chunk has loaded had no pagehide handler yet, and
// its reports were lost. They are kept in the origin's storage and sent by its next page that
// exports to the same collector.
test('a report that ends before the exporter has loaded, on a page left at once, is sent by the next page', async (t) => {
  const page = await env.harness();
  received.length = 0;
  // The exporter's chunk is slow to come (a cold cache on a slow network).
  let release;
  const held = new Promise((r) => (release = r));
  await page.route('**/js/export/otlp.js', async (route) => {
    await held;
    // The page that asked for it is gone by then: its request was cancelled.
    await route.continue().catch(() => {});
  });
  const status = await page.evaluate(async (url) => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({ otlp: { url, intervalMs: 60000 } });
    window.keep = p;
    const done = new Promise((r) => p.onReport(r));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=10&token_ms=2&tokens=8', { method: 'POST', body: '{}' });
    await res.text();
    return (await done).status;
  }, collectorUrl);
  assert.equal(status, 'ok');
  await page.goto('about:blank');
  release();
  await page.unroute('**/js/export/otlp.js');
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(received.length, 0, 'nothing could be sent by the page that was left');
  // The next page of the origin, exporting to the same collector.
  await page.goto(`${env.url}/tests/pages/harness.html`);
  await page.evaluate(async (url) => {
    const { Profiler } = await import('/js/index.js');
    window.keep = new Profiler({ otlp: { url, intervalMs: 60000 } });
  }, collectorUrl);
  await waitFor(() => received.some((x) => x.path === '/v1/traces'), 20000);
  const traces = received.find((x) => x.path === '/v1/traces');
  t.diagnostic(`received: ${received.map((x) => x.path)}`);
  assert.ok(traces, 'the kept report was sent');
  assert.ok(validate('traces', traces.body) > 0);
  // Sent once: the storage is empty again.
  assert.equal(await page.evaluate(() => localStorage.getItem('tokenpaint:otlp-unsent')), null);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the validator rejects what OTLP would reject', () => {
  assert.throws(() => validate('traces', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '00112233445566778899aabbccddeeff', spanId: '0011223344556677', name: 'x', startTime: '1' }] }] }] })));
  assert.throws(() => validate('traces', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '0011', spanId: '0011223344556677', name: 'x' }] }] }] })));
  assert.throws(() => validate('metrics', JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', exponentialHistogram: { dataPoints: [{ scale: 'five' }] } }] }] }] })));
});
