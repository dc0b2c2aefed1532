// Never silent (issue 58), through the whole shell: generated protocols (tests/support/protocols.mjs)
// played into a page (jsdom) profiled as the extension and the injected script profile one
// (`instrument({ guess: true })`, `observe()` of the whole document), with the real core. The user
// types the question and presses Enter; the page sends the ask among layout and heartbeat frames;
// the app's socket (or stream) carries the answer among side traffic, and the page shows it as the
// app renders it (appended, or replaced whole, as text or HTML). Wherever the answer grows on the
// page, one report arrives, for it: learned, its text the answer, its start the request or frame
// that carried the question (or the submit), its end the protocol's own (or quiet, on a socket
// that stays open). A socket that carries only side traffic, with nothing growing on the page,
// makes no report. An answer that grows with no stream that could carry it gets `read.by: 'none'`.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { rng, protocol, framesOf } from '../support/protocols.mjs';
import { messagePack, cbor, base64 } from '../support/encode.mjs';
import { normal } from '../../js/transports/learn.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CASES = Number(process.env.SILENT_CASES) || 40;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let Profiler;
let window;

class FakeWebSocket extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.readyState = 1;
  }
  send() {}
}

before(async () => {
  ({ window } = new JSDOM('<!doctype html><html><head></head><body></body></html>', { pretendToBeVisual: true }));
  for (const k of ['document', 'MutationObserver', 'Node', 'Element', 'HTMLElement', 'ShadowRoot', 'NodeFilter', 'requestAnimationFrame', 'cancelAnimationFrame', 'getComputedStyle', 'KeyboardEvent']) globalThis[k] = window[k];
  globalThis.addEventListener = window.addEventListener.bind(window);
  globalThis.removeEventListener = window.removeEventListener.bind(window);
  globalThis.WebSocket = FakeWebSocket;
  const index = await import('../../js/index.js');
  await index.default(readFileSync(path.join(root, 'pkg/tokenpaint_core_bg.wasm')));
  Profiler = index.Profiler;
});

/** The page: a conversation, the prompt, and the answer as the app shows it. */
function page(question) {
  const doc = window.document;
  doc.body.innerHTML = '<main id="chat"><div class="msg user"></div><div class="msg bot"><span class="name">Assistant</span><div class="md"></div></div></main><footer><input id="prompt" type="text"></footer>';
  doc.querySelector('.user').textContent = question;
  return { input: doc.getElementById('prompt'), answer: doc.querySelector('.md') };
}

/** The frames or body chunks that carry each event, as the protocol's transport carries them. */
function wire(p, value, name) {
  if (p.carry === 'socketio') return `42${JSON.stringify([name || 'message', value])}`;
  if (typeof value === 'string' || value instanceof Uint8Array) return value instanceof Uint8Array ? value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) : value;
  if (p.carry === 'binary-json') return new TextEncoder().encode(JSON.stringify(value)).buffer;
  if (p.carry === 'msgpack') return messagePack(value).buffer;
  if (p.carry === 'cbor') return cbor(value).buffer;
  return JSON.stringify(value);
}

/** Plays one protocol; returns the reports it made. */
async function play(p, { answer = true } = {}) {
  // The network: a fetch that answers the ask in JSON, and streams the answer's events.
  let push = null;
  let close = null;
  const saved = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    if (init && init.method === 'POST') return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
    const body = new ReadableStream({
      start(c) {
        push = (s) => c.enqueue(new TextEncoder().encode(s));
        close = () => c.close();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  // quietMs: 600, not 150. The events of one answer come 1 to 3 ms apart, and a loaded machine
  // can hold this process longer than 150 ms between two of them, which would end the answer
  // there. The likeliest reading of the one failure seen here (the Node tier run beside a loaded
  // fresh run; its message was not kept, and 7 runs after it passed).
  const prof = new Profiler({ settleMs: 30, quietMs: 600, includeText: true, maxSettleMs: 2000 });
  const reports = [];
  prof.onReport((r) => reports.push(r));
  const undo = prof.instrument({ guess: true });
  prof.observe();
  await sleep(20);
  const { input, answer: el } = page(p.question);
  const sse = p.carry === 'sse' || p.carry === 'base64-sse';
  // The app's socket, or its stream (a fetch it reads as server-sent events).
  const ws = new globalThis.WebSocket('ws://app/socket');
  try {
    let reader = null;
    if (sse) {
      const res = await fetch('http://app/stream');
      reader = res.body.getReader();
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })().catch(() => {});
    }
    // The user asks: the page sends its frames, the ask among them.
    let sent = 0;
    for (const o of p.outs) {
      if (o.t > p.submitAt && !sent++) {
        input.value = p.question;
        input.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Enter', bubbles: true, composed: true }));
      }
      await sleep(1);
      if (o.frame) ws.send(o.data);
      else await fetch('http://app/ask', { method: 'POST', body: o.data });
    }
    let shown = '';
    for (const e of answer ? p.events : p.events.filter((x) => x.answer === null)) {
      await sleep(1 + (e.answer !== null ? 2 : 0));
      if (sse) push(`${e.name ? `event: ${e.name}\n` : ''}data: ${p.carry === 'base64-sse' ? base64(e.value) : framesOf(e.value)}\n\n`);
      else ws.dispatchEvent(new MessageEvent('message', { data: wire(p, e.value, e.name) }));
      if (e.answer === null) continue;
      // The app's handler shows it: appended, or the answer so far whole.
      shown += e.answer;
      const text = p.shownOf(shown);
      if (p.markup === 'html' && p.mode === 'snapshot') el.innerHTML = `<p>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>`;
      else if (p.mode === 'delta' || p.mode === 'splice' || p.mode === 'whole-first') el.append(p.shownOf(e.answer));
      else el.textContent = text;
    }
    // The stream of a protocol with an end closes after it; a socket stays open.
    if (sse && p.end !== 'none' && close) close();
    for (const until = Date.now() + 3000; Date.now() < until && (answer ? reports.length < 1 : true); ) await sleep(25);
    await sleep(answer ? 200 : 600);
    return reports;
  } finally {
    undo();
    globalThis.fetch = saved;
    prof.close();
  }
}

test(`never silent, over ${CASES} generated protocols through the whole shell: wherever the answer grows on the page one report arrives, learned, with its start and its end`, async (t) => {
  const got = [];
  for (let seed = 1; seed <= CASES; seed++) {
    const r = rng(seed);
    const p = protocol(r);
    const what = `seed ${seed} (${p.carry}, ${p.mode}, ${p.markup}, end ${p.end}, ask ${p.ask})`;
    const reports = await play(p);
    assert.equal(reports.length, 1, `${what}: one report, got ${JSON.stringify(reports.map((x) => x.read))}`);
    const [x] = reports;
    assert.equal(x.read.by, 'learned', `${what}: ${JSON.stringify(x.read)}`);
    assert.equal(x.status, 'ok', `${what}: ${JSON.stringify(x.error)}`);
    assert.equal(normal(x.text), normal(p.text), `${what}: the answer's text`);
    const end = { marker: 'marker', deep: 'marker', flag: 'marker', whole: 'whole', none: 'quiet' }[p.end];
    assert.equal(x.read.end, end, what);
    assert.equal(x.start.by, p.ask, `${what}: start ${JSON.stringify(x.start)}`);
    got.push(`${p.carry}/${p.mode}/${x.read.end}/${x.start.by}`);
  }
  t.diagnostic(`${got.length} of ${CASES}: ${[...new Set(got)].length} shapes`);
});

test('no side traffic: a socket that carries only heartbeats, status, presence, layout, tools and echoes, with nothing growing on the page, makes no report', async () => {
  for (let seed = 1; seed <= 8; seed++) {
    const p = protocol(rng(seed));
    if (p.carry === 'sse' || p.carry === 'base64-sse') continue;
    const reports = await play(p, { answer: false });
    assert.deepEqual(reports, [], `seed ${seed}`);
  }
});

test("hostile frames (10 MB, nesting 1,000 deep, invalid UTF-8, binary noise) never throw into the page and reach the app's own listener as soon as they would without tokenpaint", async () => {
  let deep = '"bottom"';
  for (let i = 0; i < 1000; i++) deep = `{"down":${deep}}`;
  const frames = [
    JSON.stringify({ type: 'big', text: 'x'.repeat(10 * 1024 * 1024) }),
    deep,
    Uint8Array.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]).buffer,
    Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256).buffer,
    Uint8Array.from({ length: 1024 }, () => 0x9f).buffer,
  ];
  // As a socket delivers them: flat strings (V8 flattens a built-up string at its first read, once,
  // whoever reads it first).
  for (const f of frames) if (typeof f === 'string') f.indexOf('\u0000');
  // How long after its dispatch each frame reaches the app's own listener, with tokenpaint's
  // listener in front of it (instrument()) and without, in the same run.
  const delays = async (profiled) => {
    const prof = profiled ? new Profiler({ settleMs: 30 }) : null;
    const undo = prof ? prof.instrument({ guess: true }) : () => {};
    const errors = [];
    const got = [];
    try {
      const ws = new globalThis.WebSocket('ws://app/socket');
      ws.addEventListener('message', (e) => got.push([performance.now(), e.data]));
      // A first small frame: what either way does once (compiling, the socket's readers) is not
      // counted against the frames.
      ws.dispatchEvent(new MessageEvent('message', { data: '{"warm":1}' }));
      got.length = 0;
      await sleep(20);
      const out = [];
      for (const data of frames) {
        const t = performance.now();
        try {
          ws.dispatchEvent(new MessageEvent('message', { data }));
        } catch (e) {
          errors.push(e);
        }
        out.push(got[got.length - 1][0] - t);
        await sleep(5);
      }
      await sleep(50);
      assert.deepEqual(errors, []);
      assert.equal(got.length, frames.length);
      for (const [i, [, data]] of got.entries()) assert.equal(data, frames[i], 'the app got each frame as it was sent');
      return out;
    } finally {
      undo();
      if (prof) prof.close();
    }
  };
  // Each way three times, in turn, and each frame's quickest: a garbage collection or a compile
  // that falls on one frame of one round is the runtime's, not what tokenpaint does in front of
  // the app (a fresh run once had 1.3 ms on the 4 KB frame with tokenpaint, 0.08 ms without).
  const bare = [];
  const withIt = [];
  for (let round = 0; round < 3; round++) {
    bare.push(await delays(false));
    withIt.push(await delays(true));
  }
  const quickest = (runs) => runs[0].map((_, i) => Math.min(...runs.map((r) => r[i])));
  const [b, w] = [quickest(bare), quickest(withIt)];
  for (const [i, d] of w.entries()) assert.ok(d <= b[i] * 2 + 1, `frame ${i}: ${d.toFixed(3)} ms with tokenpaint, ${b[i].toFixed(3)} ms without (each the quickest of 3)`);
});
