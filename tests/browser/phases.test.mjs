// Where the time went, in real Chromium against the simulator over a socket: server timings
// sent every way tokenpaint reads them become phases with source `server` that match what was
// sent (read here from the raw body or headers, independently of tokenpaint), and the phases
// add up to the perceived E2E. An intermediary that holds bytes is diagnosed, with its hold
// time estimated within 20% of the truth the simulator measured.
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

const run = (query) => page.evaluate((q) => window.runPhases(q), query);
const phase = (r, name) => r.phases.find((p) => p.name === name);
const num = (raw, re) => Number(re.exec(raw)?.[1]);
const BASE = 'ttft_ms=200&token_ms=20&tokens=30&queue_ms=150';

function addsUp(r) {
  assert.equal(r.phasesTotal.of, 'e2ePerceived');
  assert.ok(Math.abs(r.phasesTotal.ms - r.e2ePerceived.painted) < 0.02, `${r.phasesTotal.ms} vs ${r.e2ePerceived.painted}`);
  for (const p of r.phases) {
    assert.ok(p.ms === null || p.ms >= 0, `${p.name} ${p.ms}`);
    assert.equal(p.ms === null, p.unknownBecause !== null, `${p.name}: ${p.ms}, ${p.unknownBecause}`);
  }
  const known = r.phases.reduce((a, p) => a + (p.ms ?? 0), 0);
  assert.ok(known <= r.phasesTotal.ms + 1, `known ${known} > total ${r.phasesTotal.ms}`);
  assert.ok(r.phasesTotal.unattributed >= 0, `unattributed ${r.phasesTotal.unattributed}`);
  assert.ok(Math.abs(known + r.phasesTotal.unattributed - r.phasesTotal.ms) <= 1.05);
}

test('vLLM metrics become server phases that add up to the perceived E2E', async (t) => {
  const { report: r, raw } = await run(`${BASE}&metrics=vllm`);
  const sent = { queue: num(raw, /"queue_time_ms":([\d.]+)/), prefill: num(raw, /"time_to_first_token_ms":([\d.]+)/), decode: num(raw, /"generation_time_ms":([\d.]+)/) };
  t.diagnostic(JSON.stringify({ phases: r.phases, total: r.phasesTotal }));
  for (const name of ['queue', 'prefill', 'decode']) {
    assert.equal(phase(r, name).source, 'server', name);
    assert.ok(Math.abs(phase(r, name).ms - sent[name]) < 0.02, `${name}: ${phase(r, name).ms} vs ${sent[name]}`);
  }
  assert.equal(phase(r, 'network').source, 'derived');
  assert.equal(phase(r, 'client').source, 'client');
  addsUp(r);
  assert.ok(Math.abs(r.phasesTotal.unattributed) < 20, `unattributed ${r.phasesTotal.unattributed}`);
});

test('a Server-Timing header becomes server phases', async () => {
  const { report: r } = await run(`${BASE}&server_timing=header`);
  assert.equal(phase(r, 'queue').ms, 150);
  assert.equal(phase(r, 'prefill').ms, 200);
  assert.equal(phase(r, 'decode').ms, 29 * 20);
  assert.equal(phase(r, 'decode').source, 'server');
  addsUp(r);
});

test('an SSE server-timing event becomes server phases', async () => {
  const { report: r, raw } = await run(`${BASE}&server_timing=event`);
  const decode = num(raw, /decode;dur=([\d.]+)/);
  assert.equal(phase(r, 'queue').ms, 150);
  assert.ok(Math.abs(phase(r, 'decode').ms - decode) < 0.02);
  assert.equal(r.malformed, null, 'the timing event is not read as an answer event');
  addsUp(r);
});

test('llama.cpp timings become prefill and decode; the wait after the headers it does not report is a derived queue', async (t) => {
  // queue_ms: the simulator waits 150 ms after sending its headers, and reports no queue.
  const { report: r, raw } = await run(`${BASE}&metrics=llamacpp`);
  assert.ok(Math.abs(phase(r, 'prefill').ms - num(raw, /"prompt_ms":([\d.]+)/)) < 0.02);
  assert.ok(Math.abs(phase(r, 'decode').ms - num(raw, /"predicted_ms":([\d.]+)/)) < 0.02);
  t.diagnostic(JSON.stringify(r.phases));
  assert.equal(phase(r, 'queue').source, 'derived');
  assert.equal(phase(r, 'queue').basis, 'wait-after-headers');
  assert.ok(Math.abs(phase(r, 'queue').ms - 150) <= 30, `queue ${phase(r, 'queue').ms}`);
  assert.ok(phase(r, 'network').ms <= 30, `network ${phase(r, 'network').ms}`);
  addsUp(r);
});

// A server that queues and does not say so (llama.cpp's timings carry prefill and decode only):
// the page's third request waits for the one slot behind two others, sent off the page. The
// queue is derived from when the headers came, whether the server sends them when the slot
// takes the request (llama-server) or at once; it matches the wait the simulator measured, and
// the verdict is queue-bound, never healthy. Alone, the same request has no queue.
for (const [name, extra] of [['headers when a slot takes it, as llama-server', ''], ['headers at once', '&headers=once']]) {
  test(`queued behind two requests with no queue figure (${name}): queue-bound, the queue within 5% of the wait`, async (t) => {
    const pool = `p${Math.random().toString(36).slice(2)}`;
    const query = `ttft_ms=150&token_ms=15&tokens=60&metrics=llamacpp&slots=1&pool=${pool}${extra}`;
    const url = `${env.url}/v1/chat/completions?${query}`;
    const first = await fetch(url, { method: 'POST', body: '{}' });
    const second = fetch(url, { method: 'POST', body: '{}' }).then((res) => res.text());
    await new Promise((r) => setTimeout(r, 50));
    const [{ report: r, raw }] = await Promise.all([run(query), first.text(), second]);
    const wait = num(raw, /slot_wait_ms=([\d.]+)/);
    const q = phase(r, 'queue');
    t.diagnostic(JSON.stringify({ wait, phases: r.phases.map((p) => [p.name, p.ms, p.source, p.basis]), verdicts: r.diagnosis.map((v) => v.verdict) }));
    assert.ok(wait > 1000, `the request waited (${wait} ms)`);
    assert.equal(q.source, 'derived');
    assert.equal(q.basis, extra ? 'wait-after-headers' : 'headers-at-work-start');
    assert.ok(Math.abs(q.ms - wait) <= Math.max(30, 0.05 * wait), `queue ${q.ms} vs the wait ${wait}`);
    assert.ok(phase(r, 'network').ms <= 30, `network ${phase(r, 'network').ms}`);
    assert.equal(r.diagnosis[0].verdict, 'queue-bound');
    assert.ok(!r.diagnosis.some((v) => v.verdict === 'healthy'));
    addsUp(r);
    // Alone.
    const { report: alone, raw: rawAlone } = await run(query);
    const aq = phase(alone, 'queue');
    t.diagnostic(JSON.stringify({ wait: num(rawAlone, /slot_wait_ms=([\d.]+)/), phases: alone.phases.map((p) => [p.name, p.ms, p.source, p.basis]), verdicts: alone.diagnosis.map((v) => v.verdict) }));
    assert.ok(aq.ms <= 50, `queue alone ${aq.ms}`);
    assert.ok(!alone.diagnosis.some((v) => v.verdict === 'queue-bound'));
    addsUp(alone);
  });
}

test('Ollama durations (ns) become server phases in ms', async () => {
  const { report: r, raw } = await run(`${BASE}&format=ollama`);
  assert.equal(r.format, 'ollama');
  const ns = (name) => num(raw, new RegExp(`"${name}":(\\d+)`)) / 1e6;
  assert.ok(Math.abs(phase(r, 'queue').ms - ns('load_duration')) < 0.01, 'model load counts as queue');
  assert.ok(Math.abs(phase(r, 'prefill').ms - ns('prompt_eval_duration')) < 0.01);
  assert.ok(Math.abs(phase(r, 'decode').ms - ns('eval_duration')) < 0.01);
  addsUp(r);
});

for (const [name, query] of [
  ['4 KB bursts, server metrics', 'ttft_ms=100&token_ms=20&tokens=150&coalesce_bytes=4096&metrics=vllm'],
  ['4 KB bursts, llama.cpp timings per token', 'ttft_ms=100&token_ms=20&jitter_ms=8&tokens=150&coalesce_bytes=4096&metrics=llamacpp&timings_per_token=1'],
  ['4 KB bursts, no server timings', 'ttft_ms=100&token_ms=20&tokens=150&coalesce_bytes=4096&usage=0'],
  ['everything at the end', 'ttft_ms=100&token_ms=20&tokens=80&hold=all&metrics=vllm'],
]) {
  test(`an intermediary holding bytes (${name}) is diagnosed, its hold within 20%`, async (t) => {
    const { report: r, raw } = await run(query);
    const truth = num(raw, /held_mean_ms=([\d.]+)/);
    t.diagnostic(`held ${r.intermediary.heldMeanMs} ms (truth ${truth}), pattern ${r.intermediary.pattern}, verdicts ${r.diagnosis.map((v) => v.verdict)}`);
    assert.equal(r.diagnosis[0].verdict, 'intermediary-buffered');
    assert.ok(Math.abs(r.intermediary.heldMeanMs - truth) <= 0.2 * truth, `held ${r.intermediary.heldMeanMs} vs ${truth}`);
  });
}

test('a healthy stream is diagnosed healthy', async () => {
  const { report: r } = await run('ttft_ms=100&token_ms=20&tokens=40&metrics=vllm');
  assert.deepEqual(r.diagnosis.map((v) => v.verdict), ['healthy']);
});

// A shared server: one decode step of 600 ms mid-stream while it prefills another request's
// prompt (a real llama-server did 550-650 ms), with llama.cpp's timings in the stream and
// without any. Nothing held anything: no intermediary phase, no negative remainder, and the
// stall is named on the server, where and how long the simulator says.
for (const [name, extra] of [
  ['llama.cpp timings', '&metrics=llamacpp'],
  ['llama.cpp timings per token', '&metrics=llamacpp&timings_per_token=1'],
  ['no server timings', '&usage=0'],
]) {
  test(`one slow decode step (${name}) is a stall on the server, not a hold`, async (t) => {
    const { report: r, raw } = await run(`ttft_ms=150&token_ms=20&tokens=60&stall_at=30&stall_ms=600${extra}`);
    const truth = { at: num(raw, /stall_at_ms=([\d.]+)/), ms: num(raw, /stall_ms=([\d.]+)/) };
    const v = r.diagnosis.find((d) => d.verdict === 'decode-stall');
    t.diagnostic(JSON.stringify({ truth, verdicts: r.diagnosis.map((d) => d.verdict), phases: r.phases.map((p) => [p.name, p.ms]), total: r.phasesTotal, intermediary: r.intermediary, arrivals: r.arrivals, serverDecode: r.serverTimings?.decode ?? null, span: r.e2e - r.ttft }));
    addsUp(r);
    assert.equal(phase(r, 'intermediary').ms, 0);
    assert.notEqual(r.intermediary.heldBy, 'intermediary');
    assert.ok(!r.diagnosis.some((d) => /buffered/.test(d.verdict)), r.diagnosis.map((d) => d.verdict).join());
    assert.ok(!r.diagnosis.some((d) => d.verdict === 'healthy'));
    assert.ok(v, 'a decode-stall verdict');
    assert.equal(v.place, 'server');
    // The server's own stamps: the read gap is the stall plus the pace around it, read on
    // this page within what the page's reads can move (the read before and after it).
    assert.ok(v.evidence.stallMs >= truth.ms - 5 && v.evidence.stallMs <= truth.ms + 5 + 2 * v.evidence.stepMs, `${v.evidence.stallMs} vs ${truth.ms}`);
    // The server's decode span against the page's: `matchesServer` is the core's comparison of
    // the two, within SAME_SPAN_MS (5 ms), and they differ by no more than the page's own
    // figures say it read late: the main thread's blocked time, the first token's network phase
    // (its read after the server sent it, on localhost), and the body's end read after the
    // network's last byte (Resource Timing). A quiet fresh run of 8c50acb saw no blocked time
    // and had matchesServer false, which the old check (true whenever nothing was seen blocked)
    // failed; a local run had the spans 5.6 ms apart, the first token read late.
    if (extra.includes('llamacpp')) {
      const span = r.e2e - r.ttft;
      const gap = Math.abs(r.serverTimings.decode - span);
      if (Math.abs(gap - 5) > 0.05) assert.equal(r.intermediary.matchesServer, gap <= 5, `gap ${gap}`);
      const late = r.arrivals.blockedMs + (phase(r, 'network').ms ?? 0) + (r.arrivals.endReadLateMs ?? 0);
      assert.ok(gap <= 5 + late, `server decode ${r.serverTimings.decode} vs the page's span ${span}, read late by ${late} ms`);
    }
  });
}
