// The shell's Node unit tier (issue 50): the real shell (js/) and the real core (pkg/) in Node,
// without a browser, in seconds. Every transport's messages read as the page's would be: fetch,
// XMLHttpRequest, EventSource (named events too), WebSocket (OpenAI chunks per message, an
// answer per id), Socket.IO (a client's events, packets over a WebSocket, Engine.IO long-polling) and the
// push handle; the queue into the core (a reused buffer, many chunks, order); report assembly
// (js/core/assemble.js). The transports are small stand-ins with the browser's own event
// shapes (EventTarget, MessageEvent); the browser tier (tests/browser/) runs the real ones.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import init, { Profiler } from '../../js/index.js';
import { socketIoEvent } from '../../js/transports/sockets.js';
import { assembleFigures, assembleRead } from '../../js/core/assemble.js';
import { FIXES } from '../../js/verdicts.js';
import { CONFIG_KEYS, RESOURCE_FIELDS, RENDER, configText } from '../../js/options.js';
import { committedOf, resumeLimitOf } from '../../js/core/wasm.js';
import http from 'node:http';
import { Core } from '../../pkg/tokenpaint_core.js';
import * as calls from '../../js/core/calls.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const enc = new TextEncoder();
const chunk = (text, id = 'c1') => JSON.stringify({ id, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text } }] });
const sse = (text) => `data: ${chunk(text)}\n\n`;
const WORDS = ['Hello', ' there,', ' how', ' are', ' you', ' today?'];
const ANSWER = WORDS.join('');
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

// Stand-ins for the browser's transports, as EventTargets firing the browser's events.
class FakeXhr extends EventTarget {
  readyState = 0;
  status = 0;
  responseType = '';
  responseText = '';
  responseURL = 'http://127.0.0.1/v1/chat/completions';
  getAllResponseHeaders() {
    return 'content-type: text/event-stream\r\nserver: uvicorn\r\n';
  }
  open() {}
  send() {}
  fire(type) {
    this.dispatchEvent(new Event(type));
  }
}
class FakeEventSource extends EventTarget {
  readyState = 0;
  url = 'http://127.0.0.1/sse';
}
class FakeWebSocket extends EventTarget {
  readyState = 1;
  url = 'ws://127.0.0.1/ws';
  send() {}
}
const saved = {};
before(async () => {
  for (const [k, v] of Object.entries({ XMLHttpRequest: FakeXhr, EventSource: FakeEventSource, WebSocket: FakeWebSocket })) {
    saved[k] = globalThis[k];
    globalThis[k] = v;
  }
  await init(readFileSync(path.join(root, 'pkg/tokenpaint_core_bg.wasm')));
});
after(() => {
  for (const [k, v] of Object.entries(saved)) globalThis[k] = v;
});

/** A profiler, and its reports as they come (`next()` waits for the next one). */
function profiled(options = {}) {
  const p = new Profiler({ settleMs: 20, ...options });
  const reports = [];
  const waiting = [];
  p.onReport((r) => (waiting.length ? waiting.shift()(r) : reports.push(r)));
  const next = (what = '', ms = 3000) =>
    reports.length
      ? Promise.resolve(reports.shift())
      : Promise.race([new Promise((r) => waiting.push(r)), new Promise((_, no) => setTimeout(() => no(new Error(`no report ${what}`)), ms))]);
  return { p, next };
}

/** The headline of a report, for the assertions. */
const gist = (r) => ({ status: r.status, transport: r.transport, format: r.format, deltas: r.deltas, chars: r.chars });

test('fetch: the app reads the bytes it was sent, and the report reads every delta', async () => {
  const body = WORDS.map(sse).join('') + 'data: [DONE]\n\n';
  const stream = new ReadableStream({
    async start(c) {
      for (let i = 0; i < body.length; i += 37) {
        c.enqueue(enc.encode(body.slice(i, i + 37)));
        await tick(2);
      }
      c.close();
    },
  });
  const { p, next } = profiled({ fetch: async () => new Response(stream, { headers: { 'content-type': 'text/event-stream' } }) });
  const res = await p.fetch('http://127.0.0.1/v1/chat/completions', { method: 'POST' });
  assert.equal(await res.text(), body);
  assert.deepEqual(gist(await next('#1')), { status: 'ok', transport: 'fetch', format: 'openai-chat', deltas: 6, chars: ANSWER.length });
  p.close();
});

test('XMLHttpRequest: each progress hands over the new part of responseText; loadend ends it', async () => {
  const { p, next } = profiled();
  const xhr = new FakeXhr();
  p.track(xhr);
  xhr.readyState = 2;
  xhr.status = 200;
  xhr.fire('readystatechange');
  for (const w of WORDS) {
    xhr.responseText += sse(w);
    xhr.readyState = 3;
    xhr.fire('progress');
    await tick();
  }
  xhr.responseText += 'data: [DONE]\n\n';
  xhr.readyState = 4;
  xhr.fire('load');
  xhr.fire('loadend');
  assert.deepEqual(gist(await next('#2')), { status: 'ok', transport: 'xhr', format: 'openai-chat', deltas: 6, chars: ANSWER.length });
  // abort() ends it as aborted.
  const x2 = new FakeXhr();
  p.track(x2);
  x2.readyState = 3;
  x2.status = 200;
  x2.responseText = sse('Hi');
  x2.fire('progress');
  x2.fire('abort');
  x2.fire('loadend');
  const r = await next('#3');
  assert.equal(r.status, 'aborted');
  p.close();
});

test('EventSource: message and named events are re-framed as the SSE events they were; close() ends it', async () => {
  const { p, next } = profiled();
  const es = new FakeEventSource();
  p.track(es);
  es.readyState = 1;
  es.dispatchEvent(new Event('open'));
  for (const w of WORDS) {
    es.dispatchEvent(new MessageEvent('message', { data: chunk(w), lastEventId: '7' }));
    await tick();
  }
  es.readyState = 2; // the app's close(): no event, noticed within 250 ms
  assert.deepEqual(gist(await next('#4')), { status: 'ok', transport: 'eventsource', format: 'openai-chat', deltas: 6, chars: ANSWER.length });
  // Anthropic's named events (an EventSource hands them only to listeners of their name).
  const a = new FakeEventSource();
  p.track(a);
  a.readyState = 1;
  a.dispatchEvent(new Event('open'));
  a.dispatchEvent(new MessageEvent('message_start', { data: JSON.stringify({ type: 'message_start', message: { usage: { input_tokens: 5 } } }) }));
  for (const w of WORDS) a.dispatchEvent(new MessageEvent('content_block_delta', { data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: w } }) }));
  a.dispatchEvent(new MessageEvent('message_stop', { data: JSON.stringify({ type: 'message_stop' }) }));
  a.readyState = 2;
  assert.deepEqual(gist(await next('#5')), { status: 'ok', transport: 'eventsource', format: 'anthropic', deltas: 6, chars: ANSWER.length });
  p.close();
});

test('WebSocket: OpenAI chunks per message, an answer per id, interleaved; a clean close ends them', async () => {
  const { p, next } = profiled();
  const ws = new FakeWebSocket();
  p.track(ws);
  for (const w of WORDS) {
    ws.dispatchEvent(new MessageEvent('message', { data: chunk(w, 'a') }));
    ws.dispatchEvent(new MessageEvent('message', { data: chunk(w.toUpperCase(), 'b') }));
    await tick();
  }
  ws.dispatchEvent(Object.assign(new Event('close'), { code: 1000, wasClean: true }));
  const got = [await next('#6'), await next('#7')];
  for (const r of got) assert.deepEqual(gist(r), { status: 'ok', transport: 'websocket', format: 'openai-chat', deltas: 6, chars: ANSWER.length });
  // A close that is not clean fails the open answers.
  const w2 = new FakeWebSocket();
  p.track(w2);
  w2.dispatchEvent(new MessageEvent('message', { data: chunk('Hi', 'c') }));
  w2.dispatchEvent(Object.assign(new Event('close'), { code: 1006, wasClean: false }));
  assert.equal((await next('#8')).status, 'error');
  p.close();
});

// What an app's Socket.IO protocol says, read by its `extract` (its deltas go to the core as plain
// text: format `text`).
const extract = (m) => (m && typeof m === 'object' && 'chat' in m ? { id: m.chat, delta: m.delta || '', done: !!m.done } : null);

test("Socket.IO: a client's events (onAny) and Engine.IO long-polling, read by the app's extract", async () => {
  const { p, next } = profiled();
  // A socket.io-client Socket, duck-typed.
  const listeners = { any: [], on: {} };
  const socket = { io: { uri: 'http://127.0.0.1' }, emit() {}, onAny: (f) => listeners.any.push(f), on: (n, f) => (listeners.on[n] = f) };
  p.track(socket, { extract });
  for (const w of WORDS) for (const f of listeners.any) f('chat', { chat: 'x', delta: w });
  for (const f of listeners.any) f('chat', { chat: 'x', done: true });
  assert.deepEqual(gist(await next('#9')), { status: 'ok', transport: 'socket.io', format: 'text', deltas: 6, chars: ANSWER.length });
  // Engine.IO long-polling: a GET poll's packets, separated by U+001E, then the close packet.
  const undo = p.instrument({ match: '/socket.io/', extract });
  const poll = new FakeXhr();
  poll.open('GET', 'http://127.0.0.1/socket.io/?EIO=4&transport=polling&sid=s1');
  poll.send();
  poll.responseText = [...WORDS.map((w) => `42${JSON.stringify(['chat', { chat: 'z', delta: w }])}`), '1'].join('\x1e');
  poll.fire('load');
  undo();
  assert.deepEqual(gist(await next('#11')), { status: 'ok', transport: 'socket.io', format: 'text', deltas: 6, chars: ANSWER.length });
  p.close();
});

/** A recorded app's traffic (tests/recordings/, recorded from the real app at that version). */
const recording = (name) => JSON.parse(readFileSync(path.join(root, 'tests/recordings', name), 'utf8'));

test('Open WebUI 0.12.4 (recorded): its Socket.IO packets over a WebSocket, read by its reader', async () => {
  const f = recording('open-webui-0.12.4.json');
  const { p, next } = profiled();
  const undo = p.instrument();
  const ws = new WebSocket(f.wire.find((w) => w.kind === 'websocket').url);
  for (const w of f.wire) if (w.kind === 'frame') ws.dispatchEvent(new MessageEvent('message', { data: w.text }));
  undo();
  const r = await next('open-webui');
  const final = f.wire.filter((w) => w.kind === 'frame' && w.text.includes('"done":true'));
  const whole = socketIoEvent(final[final.length - 1].text)[1].data.data.output[0].content[0].text;
  assert.deepEqual(gist(r), { status: 'ok', transport: 'socket.io', format: 'open-webui', deltas: 40, chars: whole.length });
  assert.deepEqual(r.read, { by: 'reader', format: 'open-webui', end: 'marker' });
  p.close();
});

test("Gradio 6.31.0 (recorded): its queue stream over fetch, read by its reader; the heartbeat and the join are no answers", async () => {
  const f = recording('gradio-6.31.0.json');
  const byId = new Map();
  for (const w of f.wire) {
    if (!byId.has(w.id)) byId.set(w.id, []);
    byId.get(w.id).push(w);
  }
  const fake = async (url) => {
    const id = [1, 5, 6].find((k) => byId.get(k)[0].url === String(url));
    const wire = byId.get(id);
    const res = wire.find((w) => w.kind === 'response');
    const body = new ReadableStream({
      async start(c) {
        for (const w of wire) {
          if (w.kind === 'chunk') c.enqueue(Buffer.from(w.bytes ?? Buffer.from(w.text).toString('base64'), 'base64'));
          await tick(1);
        }
        // The heartbeat stays open: the page never closes it. The queue stream ends (the page
        // aborted it after `close_stream`, as the recording says: here it ends).
        if (wire.some((w) => w.kind === 'end' || w.kind === 'error')) c.close();
      },
    });
    return new Response(body, { status: res.status, headers: { 'content-type': res.type } });
  };
  const saved = globalThis.fetch;
  globalThis.fetch = fake;
  const { p, next } = profiled();
  const undo = p.instrument();
  try {
    const read = async (id, init) => {
      const res = await fetch(byId.get(id)[0].url, init);
      return res.body.getReader();
    };
    const heartbeat = await read(1);
    heartbeat.read();
    const join = await read(5, { method: 'POST', body: byId.get(5)[0].body });
    while (!(await join.read()).done);
    const data = await read(6);
    let bytes = 0;
    for (let x = await data.read(); !x.done; x = await data.read()) bytes += x.value.byteLength;
    const want = byId.get(6).filter((w) => w.kind === 'chunk').reduce((n, w) => n + (w.bytes ? Buffer.from(w.bytes, 'base64') : Buffer.from(w.text)).length, 0);
    assert.equal(bytes, want, 'the app read every byte');
    const r = await next('gradio');
    assert.equal(r.status, 'ok');
    assert.deepEqual(r.read, { by: 'reader', format: 'gradio', end: 'marker' });
    assert.ok(r.deltas >= 10 && r.chars > 20, JSON.stringify(gist(r)));
    heartbeat.cancel();
    await tick(300);
    assert.deepEqual(p.reports().length, 1, 'the heartbeat and the join are not reported');
  } finally {
    undo();
    globalThis.fetch = saved;
    p.close();
  }
});

test('socketIoEvent reads event packets, with a namespace and an ack id, and nothing else', () => {
  assert.deepEqual(socketIoEvent('42["m",{"a":1}]'), ['m', { a: 1 }]);
  assert.deepEqual(socketIoEvent('42/chat,17["m","x"]'), ['m', 'x']);
  for (const not of ['2', '3', '40', '41', '42', '42[', '42[1]', '42/ns["m"]', '43["m"]', 42, null]) assert.equal(socketIoEvent(not), null, String(not));
});

test('the push handle: text as it arrives, then end(); and the queue copies a buffer the app reuses', async () => {
  const { p, next } = profiled();
  const h = p.stream({ contentType: 'text/plain', url: 'http://127.0.0.1/worker' });
  for (const w of WORDS) h.chunk(w);
  h.end();
  assert.deepEqual(gist(await next('#12')), { status: 'ok', transport: 'push', format: 'text', deltas: 6, chars: ANSWER.length });
  // One buffer, rewritten for every chunk (as a reader into a fixed buffer does): each chunk
  // is copied when queued, so the core reads what each was, not the buffer's last content.
  const buf = new Uint8Array(256);
  const s = p.stream();
  const all = [];
  for (const w of WORDS) {
    const bytes = enc.encode(sse(w));
    const view = buf.subarray(0, bytes.length);
    buf.fill(0);
    view.set(bytes);
    s.chunk(view);
    all.push(w);
  }
  s.chunk('data: [DONE]\n\n');
  s.end();
  const r = await next('#13');
  assert.deepEqual(gist(r), { status: 'ok', transport: 'push', format: 'openai-chat', deltas: 6, chars: ANSWER.length });
  assert.equal(r.malformed, null);
  p.close();
});

test("the summary's verdicts carry the catalog's fix texts (the core gives their ids)", async () => {
  const { p, next } = profiled();
  // A tail: most answers start at once, one in eight waited six seconds.
  for (let i = 0; i < 40; i++) {
    const h = p.stream({ start: performance.now() - (i % 8 === 0 ? 6000 : 50) });
    for (const w of WORDS) h.chunk(sse(w));
    h.chunk('data: [DONE]\n\n');
    h.end();
  }
  for (let i = 0; i < 40; i++) await next(`#tail ${i}`);
  const summary = p.summary();
  p.close();
  assert.ok(summary.diagnosis.length > 0, JSON.stringify(summary.diagnosis));
  for (const v of summary.diagnosis) {
    assert.ok(v.fixId, v.verdict);
    assert.equal(v.fix, FIXES[v.fixId], v.verdict);
    assert.ok(v.fix.length > 20, v.verdict);
  }
});

test('the queue into the core keeps order across many streams and thousands of chunks', async () => {
  const { p, next } = profiled();
  const n = 2000;
  const handles = [p.stream({ label: 'a' }), p.stream({ label: 'b' })];
  for (let i = 0; i < n; i++) handles[i % 2].chunk(sse(`w${i} `));
  for (const h of handles) h.end();
  const got = [await next('#14'), await next('#15')];
  for (const r of got) {
    assert.equal(r.deltas, n / 2, r.label);
    assert.equal(r.status, 'ok');
  }
  assert.deepEqual(got.map((r) => r.label).sort(), ['a', 'b']);
  p.close();
});

// The configuration crosses as one value of `name=value` lines (js/core/hub.js, src/streams.rs
// `Config`); a saved timeline writes what the core took. Each option reaches the core under the
// name it reads, or this fails.
test('the options the core reads reach it: the saved timeline holds what it took', async () => {
  const thresholds = { ttft: [700, 2100], lag: [30, 90] };
  const { p, next } = profiled({ stallMs: 333, lateMs: 77, maxTokenDetail: 99, thresholds, saveTimeline: true });
  const h = p.stream();
  for (const w of WORDS) h.chunk(sse(w));
  h.end();
  const { saved } = await next('config');
  assert.equal(saved.stream.stallMs, 333);
  assert.equal(saved.shell.lateMs, 77);
  assert.equal(saved.stream.detailCap, 99);
  assert.deepEqual(saved.shell.thresholds[0], [700, 2100]);
  assert.deepEqual(saved.shell.thresholds[4], [30, 90]);
  // What the engine gives, as the shell found it (Node: no long animation frames, no Event Timing).
  assert.equal(saved.shell.longFrames, false);
  assert.equal(saved.shell.eventTiming, false);
  assert.ok(saved.shell.timerMs === null || saved.shell.timerMs > 0);
  p.close();
});

// The shell writes the configuration's lines (js/core/hub.js, through js/options.js `configText`);
// the keys and their values' types are declared once (src/options.json `config`), and
// src/streams.rs's test holds the core's Config to the same list.
test("the shell configures the core with exactly the declared keys", () => {
  const given = [];
  const configure = Core.prototype.configure;
  Core.prototype.configure = function (spec) {
    given.push(spec);
    return configure.call(this, spec);
  };
  try {
    const p = new Profiler({ stallMs: 250, slo: { ttftPerceived: { p95: 1000 } } });
    p.stream().end(); // the core is made at the first call into it
    p.close();
  } finally {
    Core.prototype.configure = configure;
  }
  assert.ok(given.length >= 1, 'the core was configured');
  const keys = given[0].split('\n').map((line) => line.slice(0, line.indexOf('=')));
  assert.deepEqual([...keys].sort(), [...CONFIG_KEYS].sort());
  assert.ok(given[0].split('\n').includes('stall=250'));
  assert.ok(given[0].split('\n').includes('slo=ttftPerceived 0.95 1000'));
  // Each value as its key's declared type writes it (js/options.js `configText`).
  const types = Object.fromEntries(JSON.parse(readFileSync(path.join(root, 'src/options.json'), 'utf8')).config.map((c) => [c.key, c.type]));
  const forms = { flag: /^[01]$/, number: /^(-?\d+(\.\d+)?(e[+-]?\d+)?|Infinity)$/, text: /^[^\n]*$/ };
  for (const line of given[0].split('\n')) {
    const [key, value] = [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)];
    assert.match(value, forms[types[key]], `${key}: a ${types[key]}`);
  }
  assert.equal(configText({ paint: true, longFrames: false, timer: Infinity, slo: 'a 1 2\nb 3 4' }), 'paint=1\nlongFrames=0\ntimer=Infinity\nslo=a 1 2 b 3 4');
});

// The Resource Timing entry crosses as one array in the declared order (src/options.json
// `resource`, js/options.js RESOURCE_FIELDS), and src/timeline/entries.rs's test holds the core's
// reading of it to the same list. Node's fetch makes real entries for a real socket.
test('the Resource Timing entry crosses into the core in the declared order: the saved timeline holds Node\'s own entry', async () => {
  const server = http.createServer((_, res) => {
    res.setHeader('content-type', 'text/event-stream');
    res.end(WORDS.map(sse).join('') + 'data: [DONE]\n\n');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/v1/chat/completions`;
  try {
    const { p, next } = profiled({ saveTimeline: true });
    const res = await p.fetch(url, { method: 'POST' });
    await res.text();
    const { saved } = await next('resource');
    p.close();
    const [entry] = performance.getEntriesByName(url);
    assert.ok(entry, "Node's fetch made a Resource Timing entry");
    // Each field where the declared order puts it: startTime as is, the others null when the
    // entry withholds them (0), the same doubles otherwise.
    const expected = (fields) => fields.map((k, i) => (i === 0 || entry[k] > 0 ? entry[k] : null));
    assert.deepEqual(saved.stream.resource, expected(RESOURCE_FIELDS));
    assert.ok(saved.stream.resource.filter((v) => v !== null).length >= 4, 'a real entry has its times');
    // The check can fail: the same entry read in another order is not what the core holds.
    const swapped = [...RESOURCE_FIELDS];
    [swapped[5], swapped[7]] = [swapped[7], swapped[5]];
    assert.notDeepEqual(saved.stream.resource, expected(swapped));
  } finally {
    server.close();
    performance.clearResourceTimings();
  }
});

// A render's result is packed as declared (src/options.json `render`); the real core packs it.
test("the render result is read as the core packs it: the tokens committed and the resume limit", async () => {
  const core = new Core();
  core.configure('paint=1');
  const id = calls.open(core, { format: 'auto', contentType: 'text/event-stream', url: '/v1/x', start: 1, headersAt: 2, httpStatus: 200 });
  const text = WORDS.join('');
  core.chunk(id, enc.encode(WORDS.map(sse).join('')), 10, true, NaN);
  const r = core.render(id, text, 0, 20);
  assert.equal(committedOf(r), WORDS.length);
  assert.ok(resumeLimitOf(r) >= 0 && resumeLimitOf(r) <= text.length && resumeLimitOf(r) % 64 === 0);
  assert.equal(committedOf(RENDER.whole), -1);
  assert.equal(resumeLimitOf(RENDER.whole), 0);
  core.free();
});

test("report assembly: the catalog's words, the late frames' scripts (tokenpaint's own never named), the entry's strings, how the answer was read", () => {
  const core = () => ({
    id: 1,
    format: 'openai-chat',
    resourceTiming: { startTime: 1 },
    latePaints: { frames: [{ seq: 4, start: 10 }, { seq: 5, start: 90 }, { seq: 9, start: 200 }] },
    diagnosis: [{ verdict: 'client-render-bound', fixId: 'client-render-bound', evidence: {} }, { verdict: 'healthy', fixId: 'healthy', evidence: {} }],
  });
  const own = 'https://app.example/node_modules/tokenpaint/';
  const page = {
    sampleRate: 0.25,
    scripts: [
      { seq: 4, scripts: [{ sourceURL: `${own}js/core/link.js`, sourceFunctionName: 'flush', duration: 300 }, { sourceURL: 'https://app.example/app.js', sourceFunctionName: 'render', duration: 40 }] },
      { seq: 5, scripts: [{ sourceURL: 'https://app.example/app.js', sourceFunctionName: 'render', duration: 60 }] },
    ],
    longFrames: true,
    ownRoot: own,
    entry: { protocol: 'h2', serverTiming: [{ name: 'queue', dur: 12, desc: null }] },
    element: { selector: 'div.msg', how: 'observed' },
    read: null,
  };
  const r = core();
  assembleFigures(r, page);
  assembleRead(r, page);
  assert.equal(r.sampleRate, 0.25);
  assert.equal(r.diagnosis[0].fix, FIXES['client-render-bound']);
  assert.ok(r.diagnosis[0].fix.length > 20);
  // The app's render, in two of the three late frames; the shell's own flush is never named.
  assert.deepEqual(r.diagnosis[0].script, { url: 'https://app.example/app.js', function: 'render', invoker: undefined, ms: 100, share: 2 / 3 });
  assert.ok(!('script' in r.diagnosis[1]), 'healthy names no script');
  assert.deepEqual(r.latePaints.frames.map((f) => f.scripts.length), [2, 1, 0]);
  assert.ok(r.latePaints.frames.every((f) => !('seq' in f)));
  assert.deepEqual(r.resourceTiming, { startTime: 1, protocol: 'h2', serverTiming: [{ name: 'queue', dur: 12, desc: null }] });
  assert.deepEqual(r.element, page.element);
  assert.deepEqual(r.read, { by: 'reader', format: 'openai-chat' });
  // An engine without long animation frames says why no script is named; a learned path is
  // the format `learned`.
  const r2 = core();
  assembleFigures(r2, { ...page, longFrames: false });
  assembleRead(r2, { ...page, read: { by: 'learned', path: '/data/text' } });
  assert.equal(r2.diagnosis[0].script, null);
  assert.equal(r2.diagnosis[0].scriptUnknown, 'long-animation-frame-unsupported');
  assert.equal(r2.format, 'learned');
  assert.deepEqual(r2.read, { by: 'learned', path: '/data/text' });
});

// Issue 59: a key press is one interaction (its keydown, keypress and keyup entries share an
// interactionId): counted once, its start and delay its first entry's, its duration its longest.
test('interactions are counted by interactionId, not by Event Timing entry', async () => {
  const { interactions } = await import('../../js/browser/input.js');
  // Six keys, three entries each, in the browser's order (keyup of one can follow the next's keydown).
  const entries = [];
  for (let k = 0; k < 6; k++) {
    const id = 100 + 7 * k;
    const t = 1000 + 40 * k;
    entries.push([id, t, 2, 24 + k], [id, t + 1, 3, 30 + k], [id, t + 25, 1, 16]);
  }
  entries.push([999, 2000, 80, 120]);
  const got = interactions(entries);
  assert.equal(got.length, 7);
  assert.deepEqual(got[0], [1000, 2, 30]);
  assert.deepEqual(got[5], [1200, 2, 35]);
  assert.deepEqual(got[6], [2000, 80, 120]);
  // An interaction whose earlier entry comes later keeps the earlier start and its delay.
  assert.deepEqual(interactions([[5, 20, 1, 10], [5, 10, 4, 8]]), [[10, 4, 10]]);
  assert.deepEqual(interactions([]), []);
});
