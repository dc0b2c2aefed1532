// Chat apps that receive answers without fetch (issue 15): sse.js over XHR (LibreChat's way),
// native EventSource, native WebSocket carrying OpenAI chunk JSON (one answer or several at
// once), and a push handle fed by the app. Each app records what it received (to compare with
// and without tokenpaint) and its own truth: when it got each delta and when it committed it.
import init, { Profiler, wasmMemoryBytes } from '/js/index.js';
import { SSE } from '/vendor/sse.js';
import { median, paintTruth } from '/tests/pages/deltas.js';

await init();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const originals = { fetch: window.fetch, open: XMLHttpRequest.prototype.open, send: XMLHttpRequest.prototype.send, EventSource: window.EventSource, WebSocket: window.WebSocket, wsSend: WebSocket.prototype.send };

/**
 * A message element that shows each delta `delay` ms after the app got it, recording the lag;
 * with `delay` null, at once, inside the transport's own event (as a page that appends a text
 * node in its message handler does).
 */
function view(host, delay) {
  const el = document.createElement('div');
  host.append(el);
  const lags = [];
  // The page's own paint truth: on a loaded machine the paint can come frames after the commit.
  const painted = paintTruth();
  const append = (text, t) => {
    el.append(text);
    lags.push(performance.now() - t);
    painted.mark(t);
  };
  return {
    el,
    lags,
    painted,
    show(text, t) {
      if (delay === null) append(text, t);
      else setTimeout(() => append(text, t), delay);
    },
  };
}

/** A profiler observing #app, and the report of its next `n` streams. */
function profiled(n = 1) {
  const host = document.getElementById('app');
  host.replaceChildren();
  const profiler = new Profiler({ settleMs: 300 });
  profiler.observe(host);
  const reports = [];
  const all = new Promise((resolve) =>
    profiler.onReport((r) => {
      reports.push(r);
      if (reports.length === n) resolve(reports);
    }),
  );
  return { host, profiler, all };
}

const content = (data) => {
  try {
    return JSON.parse(data).choices?.[0]?.delta?.content || '';
  } catch {
    return '';
  }
};

/** sse.js POSTing to the simulator, as LibreChat does; `instrumented`: under profiler.instrument. */
window.runSseJs = async ({ query = 'ttft_ms=50&token_ms=20&tokens=40', instrumented = true, delay = 20, abortAfter = 0, render = true } = {}) => {
  const { host, profiler, all } = profiled();
  const undo = instrumented ? profiler.instrument({ match: '/v1/chat/completions' }) : null;
  const v = view(host, delay);
  const received = [];
  const done = new Promise((resolve) => {
    const source = new SSE(`/v1/chat/completions?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    source.addEventListener('message', (e) => {
      const t = performance.now();
      received.push(e.data);
      if (e.data === '[DONE]') return resolve();
      const c = render && content(e.data);
      if (c) v.show(c, t);
      if (abortAfter && received.length === abortAfter) {
        source.close();
        resolve();
      }
    });
    source.addEventListener('error', () => resolve());
    source.addEventListener('abort', () => resolve());
  });
  await done;
  await sleep((delay ?? 0) + 50);
  const reports = instrumented ? await Promise.race([all, sleep(5000).then(() => [])]) : [];
  if (undo) undo();
  profiler.close();
  return { report: reports[0] || null, truth: median(v.lags), paintTruth: { p50: v.painted.median(), p95: v.painted.quantile(0.95) }, received, shown: v.el.textContent };
};

/** A native EventSource on the simulator's GET endpoint; the app closes it at [DONE]. */
window.runEventSource = async ({ query = 'ttft_ms=50&token_ms=20&tokens=40', profile = 'track', delay = 20, reconnect = false } = {}) => {
  const { host, profiler, all } = profiled(reconnect ? 2 : 1);
  const undo = profile === 'instrument' ? profiler.instrument({ match: /\/v1\/chat/ }) : null;
  const v = view(host, delay);
  const received = [];
  const es = new EventSource(`/v1/chat/completions?${query}`);
  if (profile === 'track') profiler.track(es);
  await new Promise((resolve) => {
    es.onmessage = (e) => {
      const t = performance.now();
      received.push(e.data);
      if (e.data === '[DONE]') {
        es.close();
        return resolve();
      }
      const c = content(e.data);
      if (c) v.show(c, t);
    };
    es.onerror = () => {
      if (reconnect) return; // the browser reconnects with Last-Event-ID
      es.close();
      resolve();
    };
  });
  const reports = profile ? await Promise.race([all, sleep(5000).then(() => [])]) : [];
  if (undo) undo();
  profiler.close();
  return { report: reports[0] || null, reports: reports.map((r) => ({ ...r, timeline: undefined })), truth: median(v.lags), paintTruth: { p50: v.painted.median() }, received, shown: v.el.textContent, isNative: es instanceof originals.EventSource };
};

/**
 * A native WebSocket to the simulator: `asks` answers requested at once (interleaved on one
 * socket), each shown in its own element. `profile`: 'track', 'instrument' or ''.
 */
window.runSocket = async ({ asks = [{ id: 'a1', tokens: 40, token_ms: 20 }], profile = 'track', delay = 20, extract = false } = {}) => {
  const { host, profiler, all } = profiled(asks.length);
  const undo = profile === 'instrument' ? profiler.instrument({ match: '/v1/ws' }) : null;
  const views = new Map(asks.map((a) => [a.id, view(host, delay)]));
  const received = [];
  const ws = new WebSocket(`${location.origin.replace('http', 'ws')}/v1/ws`);
  ws.binaryType = 'arraybuffer';
  const opts = extract
    ? {
        extract(data) {
          if (typeof data !== 'string' || data[0] !== '{') return null;
          const m = JSON.parse(data);
          if (!m.choices || !m.choices.length) return null;
          return { id: m.id, delta: m.choices[0].delta?.content || '', done: m.choices[0].finish_reason !== null };
        },
      }
    : {};
  if (profile === 'track') profiler.track(ws, opts);
  let finished = 0;
  let closed = false;
  await new Promise((resolve) => {
    ws.onopen = () => asks.forEach((a) => ws.send(JSON.stringify(a)));
    ws.onmessage = (e) => {
      const t = performance.now();
      received.push(typeof e.data === 'string' ? e.data : `binary ${e.data.byteLength}`);
      if (typeof e.data !== 'string' || e.data[0] !== '{') return;
      let m;
      try {
        m = JSON.parse(e.data);
      } catch {
        return;
      }
      const c = m.choices?.[0]?.delta?.content;
      if (c) views.get(m.id).show(c, t);
      if (m.usage && ++finished === asks.length) resolve();
    };
    ws.onclose = () => {
      closed = true;
      resolve();
    };
  });
  const reports = profile ? await Promise.race([all, sleep(5000).then(() => null)]) : [];
  if (!closed) ws.close(1000);
  if (undo) undo();
  profiler.close();
  return {
    reports: (reports || []).map((r) => ({ ...r, timeline: undefined })),
    truths: Object.fromEntries([...views].map(([id, v]) => [id, median(v.lags)])),
    paints: Object.fromEntries([...views].map(([id, v]) => [id, v.painted.median()])),
    shown: Object.fromEntries([...views].map(([id, v]) => [id, v.el.textContent])),
    received,
    isNative: ws instanceof originals.WebSocket,
  };
};

/** The app reads the body itself and feeds tokenpaint's push handle with each chunk. */
window.runPush = async ({ query = 'ttft_ms=50&token_ms=20&tokens=40', delay = 20 } = {}) => {
  const { host, profiler, all } = profiled();
  const v = view(host, delay);
  const handle = profiler.stream({ url: '/v1/chat/completions', label: 'push' });
  const res = await fetch(`/v1/chat/completions?${query}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const t = performance.now();
    handle.chunk(value);
    buf += decoder.decode(value, { stream: true });
    const events = buf.split('\n\n');
    buf = events.pop();
    for (const ev of events) {
      const c = content(ev.slice(6));
      if (c) v.show(c, t);
    }
  }
  handle.end();
  const reports = await Promise.race([all, sleep(5000).then(() => [])]);
  profiler.close();
  return { report: reports[0] || null, truth: median(v.lags), paintTruth: { p50: v.painted.median() }, shown: v.el.textContent };
};

/**
 * Global instrumentation's promises: a URL that does not match is not wrapped; installing twice
 * is harmless; undo restores every original (identity).
 */
window.runIdentity = async () => {
  const { profiler } = profiled();
  const undo = profiler.instrument({ match: '/v1/chat/completions' });
  const again = profiler.instrument({ match: 'other' });
  const patched = { fetch: window.fetch !== originals.fetch, open: XMLHttpRequest.prototype.open !== originals.open, EventSource: window.EventSource !== originals.EventSource, WebSocket: window.WebSocket !== originals.WebSocket };
  const unmatched = await fetch('/tests/pages/transports.html');
  const matched = await fetch('/v1/chat/completions?ttft_ms=0&token_ms=0&tokens=3');
  const body = await matched.text();
  const out = {
    twice: again === undo,
    patched,
    unmatchedUrlOwn: Object.getOwnPropertyDescriptor(unmatched, 'url') !== undefined,
    matchedUrlOwn: Object.getOwnPropertyDescriptor(matched, 'url') !== undefined,
    sameBody: body === (await (await originals.fetch.call(window, '/v1/chat/completions?ttft_ms=0&token_ms=0&tokens=3')).text()),
    esName: window.EventSource.name,
    constants: [window.WebSocket.OPEN, window.EventSource.CLOSED, XMLHttpRequest.DONE],
  };
  undo();
  out.restored = { fetch: window.fetch === originals.fetch, open: XMLHttpRequest.prototype.open === originals.open, send: XMLHttpRequest.prototype.send === originals.send, EventSource: window.EventSource === originals.EventSource, WebSocket: window.WebSocket === originals.WebSocket, wsSend: WebSocket.prototype.send === originals.wsSend };
  profiler.close();
  return out;
};

window.transportsReady = true;

/**
 * An Open WebUI 0.12 app (its protocol as recorded from 0.12.4, tests/recordings/): a
 * socket.io-client Socket receives `events` (a `response.output_text.delta` per token, then
 * `chat:completion` with `done` and the whole text) and shows each answer in its own element.
 * `profile`: 'track' (the Socket), 'instrument' (before socket.io-client loads, WebSocket
 * transport), or ''. `transports`: as socket.io-client's option.
 */
window.runSocketIo = async ({ asks = [{ id: 'm1', tokens: 40, token_ms: 20 }], profile = 'track', delay = 20, transports } = {}) => {
  const { host, profiler, all } = profiled(asks.length);
  const undo = profile === 'instrument' ? profiler.instrument({ match: '/socket.io/' }) : null;
  // A fresh copy of the module for each run: it keeps the WebSocket constructor it finds.
  const { io } = await import(`/vendor/socket.io.esm.min.js?run=${Math.random()}`);
  const socket = io({ transports: transports || (profile === 'instrument' ? ['websocket'] : ['polling', 'websocket']), reconnection: false });
  if (profile === 'track') profiler.track(socket);
  const views = new Map(asks.map((a) => [a.id, { ...view(host, delay), text: '' }]));
  const received = [];
  let done = 0;
  await new Promise((resolve) => {
    socket.on('connect', () => asks.forEach((a) => socket.emit('ask', a)));
    socket.on('events', (m) => {
      const t = performance.now();
      received.push(m instanceof ArrayBuffer ? `binary ${m.byteLength}` : JSON.stringify(m).slice(0, 200));
      const v = m && views.get(m.message_id);
      const d = v && m.data && m.data.data;
      if (!d) return;
      // As Open WebUI's frontend: a delta is appended; the last event has the whole text.
      let next = v.text;
      if (m.data.type === 'response:completion' && d.type === 'response.output_text.delta' && typeof d.delta === 'string') next = v.text + d.delta;
      else if (m.data.type === 'chat:completion' && d.done) next = d.output.flatMap((o) => o.content).map((c) => c.text).join('');
      if (next.length > v.text.length) v.show(next.slice(v.text.length), t);
      v.text = next;
      if (m.data.type === 'chat:completion' && d.done && ++done === asks.length) resolve();
    });
    socket.on('disconnect', () => resolve());
  });
  const reports = profile ? await Promise.race([all, sleep(5000).then(() => [])]) : [];
  socket.disconnect();
  await sleep(100);
  if (undo) undo();
  profiler.close();
  return {
    count: profiler.reports().length,
    reports: reports.map((r) => ({ ...r, timeline: undefined })),
    truths: Object.fromEntries([...views].map(([id, v]) => [id, median(v.lags)])),
    paints: Object.fromEntries([...views].map(([id, v]) => [id, v.painted.median()])),
    shown: Object.fromEntries([...views].map(([id, v]) => [id, v.el.textContent])),
    received,
  };
};

/**
 * One 2 MB read handed to the push handle at once (200 events of 10 KB, each with a short delta
 * and a long field the core does not keep): the report
 * counts one chunk and every byte and delta, and the module's memory grows by far less than the
 * read (it crosses into the core in parts).
 */
window.runBigRead = async () => {
  const { profiler, all } = profiled();
  const pad = 'x'.repeat(10000);
  const body = [];
  for (let i = 0; i < 200; i++) body.push(`data: {"id":"${pad}","choices":[{"index":0,"delta":{"content":"w "}}]}\n\n`);
  body.push('data: [DONE]\n\n');
  const bytes = new TextEncoder().encode(body.join(''));
  // A first stream loads the module, so that its memory is measured from a warm start.
  const warm = profiler.stream({ url: '/v1/chat/completions' });
  warm.chunk(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'));
  warm.end();
  await all;
  const before = wasmMemoryBytes();
  const got = new Promise((resolve) => profiler.onReport((r) => r.label === 'big' && resolve(r)));
  const handle = profiler.stream({ url: '/v1/chat/completions', label: 'big' });
  handle.chunk(bytes);
  handle.end();
  const r = await Promise.race([got, sleep(5000).then(() => null)]);
  const grew = wasmMemoryBytes() - before;
  profiler.close();
  return { report: r && { status: r.status, chunks: r.chunks, bytes: r.bytes, deltas: r.deltas, chars: r.chars }, length: bytes.byteLength, grew };
};
