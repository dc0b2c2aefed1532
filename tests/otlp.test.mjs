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
import { setup } from './helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
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
  env = await setup();
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

test('a trace per stream (a span per phase, first token and paint events) and exponential histograms, valid OTLP', async () => {
  const page = await env.harness();
  received.length = 0;
  const r = await page.evaluate(
    (url) => window.runStream({ query: 'ttft_ms=80&token_ms=10&tokens=25&metrics=vllm&queue_ms=20', options: { otlp: { url, intervalMs: 60000 } } }),
    collectorUrl,
  );
  await waitFor(() => received.length >= 2);
  const traces = received.find((x) => x.path === '/v1/traces');
  const metrics = received.find((x) => x.path === '/v1/metrics');
  assert.ok(traces && metrics, JSON.stringify(received.map((x) => x.path)));
  assert.equal(traces.type, 'application/json');
  assert.ok(validate('traces', traces.body) > 0);
  assert.ok(validate('metrics', metrics.body) > 0);
  const spans = JSON.parse(traces.body).resourceSpans[0].scopeSpans[0].spans;
  const rootSpan = spans.find((s) => s.name === 'llm.stream');
  assert.deepEqual(rootSpan.events.map((e) => e.name), ['first_token', 'first_paint']);
  const phases = spans.filter((s) => s.parentSpanId === rootSpan.spanId).map((s) => s.name);
  assert.deepEqual(phases.slice(0, 3), ['phase.queue', 'phase.prefill', 'phase.network']);
  assert.ok(spans.every((s) => s.traceId === rootSpan.traceId));
  const ttft = JSON.parse(metrics.body).resourceMetrics[0].scopeMetrics[0].metrics.find((m) => m.name === 'tokenpaint.ttft');
  const point = ttft.exponentialHistogram.dataPoints[0];
  assert.equal(point.count, '1');
  assert.ok(Math.abs(point.sum - r.ttft) < 0.05);
  assert.ok(!traces.body.includes('Tokens') && !traces.body.includes('answer'), 'no answer text is exported');
  await page.close();
});

test('what is batched is sent on pagehide', async () => {
  const page = await env.harness();
  received.length = 0;
  await page.evaluate(async (url) => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler({ otlp: { url, intervalMs: 60000 } });
    window.keep = p;
    const done = new Promise((r) => p.onReport(r));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=30&token_ms=5&tokens=10', { method: 'POST', body: '{}' });
    await res.text();
    await done;
  }, collectorUrl);
  assert.equal(received.length, 0, 'nothing sent yet: batched');
  await page.goto('about:blank');
  await waitFor(() => received.some((x) => x.path === '/v1/traces'));
  const traces = received.find((x) => x.path === '/v1/traces');
  assert.ok(traces, 'sent on pagehide');
  assert.ok(validate('traces', traces.body) > 0);
  await page.close();
});

test('the validator rejects what OTLP would reject', () => {
  assert.throws(() => validate('traces', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '00112233445566778899aabbccddeeff', spanId: '0011223344556677', name: 'x', startTime: '1' }] }] }] })));
  assert.throws(() => validate('traces', JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '0011', spanId: '0011223344556677', name: 'x' }] }] }] })));
  assert.throws(() => validate('metrics', JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', exponentialHistogram: { dataPoints: [{ scale: 'five' }] } }] }] }] })));
});
