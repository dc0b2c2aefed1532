// The tokenpaint lab: a chat page that streams from the simulated server (or your own), renders
// the answer the way real chat UIs do, and shows tokenpaint's report. The app's own code (reading
// the stream, rendering) knows nothing of tokenpaint except `profiler.fetch`, and, for the other
// transports (XHR, EventSource, WebSocket, Socket.IO), one `profiler.instrument()` line.

import init, { Profiler } from '/js/index.js';
import { marked } from '/vendor/marked.esm.js';
import { traceOf } from '/js/trace.js';
import { TITLES as VERDICTS } from '/js/verdicts.js';
import { levelStats, sweepRows, sweepSays, drawSweep } from '/www/sweep.js';

const $ = (id) => document.getElementById(id);
const messages = $('messages');

await init();
// Each report carries its saved timeline: an export opened again is analysed again by this build.
const profiler = new Profiler({ slo: { ttftPerceived: { p95: 1000 }, tpot: { p50: 50 } }, saveTimeline: true });
profiler.observe(messages);
profiler.onReport(showReport);
// While an answer streams: its arrived and painted text so far (the live view), drawn at most
// ten times a second so that the lab's own drawing stays small next to the app it measures.
const live = { id: null, points: [], drawn: 0 };
profiler.onProgress((p) => {
  if (p.id !== live.id) {
    live.id = p.id;
    live.points = [];
    live.drawn = 0;
  }
  if (p.t === null || p.painted === null) return;
  live.points.push([p.t, p.arrived, p.painted]);
  const now = performance.now();
  if (now - live.drawn >= 100) {
    live.drawn = now;
    drawLive(live.points, p);
  }
});
window.tokenpaintProfiler = profiler; // for the curious, and for the page tests
// Every other transport is profiled by one line; fetch goes through profiler.fetch as before.
const transport = () => $('transport').value;
profiler.instrument({ match: (url) => transport() !== 'fetch' && /\/v1\/(chat\/completions|ws)|\/socket\.io\//.test(url) });
const lab = await (await fetch('/lab/config')).json();

// --- scenarios: each a preset of the knobs, and the cause its diagnosis should name ----------

const LONG_PROMPT = 'Summarise this document. ' + 'The quarterly report covers revenue, costs, hiring and risks in detail. '.repeat(90);
const BASE = { ttft: 250, tokenMs: 20, jitter: 0, tokens: 80, reasoning: 0, stallEvery: 0, stallMs: 0, prefillPerToken: 0, slots: 0, format: 'openai', metrics: true, serverTiming: false, serverHold: false, empty: false, via: 'direct', coalesce: 0, flushMs: 0, gzip: false, render: 'append', throttle: 50, cps: 60, renderCost: 0, growCost: 0, burstMs: 0, content: 'words' };
export const SCENARIOS = {
  healthy: { label: 'Healthy', expect: 'healthy', knobs: {} },
  queueing: { label: 'Queueing under load', expect: 'queue-bound', knobs: { slots: 1, tokens: 40 }, load: { n: 4, c: 4 } },
  prefill: { label: 'Slow prefill (long prompt)', expect: 'prefill-bound', knobs: { ttft: 100, prefillPerToken: 1.5, tokens: 50 }, prompt: LONG_PROMPT },
  decode: { label: 'Slow, jittery decode', expect: 'decode-bound', knobs: { tokenMs: 90, jitter: 40, tokens: 40 } },
  proxy: { label: 'Proxy buffering (nginx)', expect: 'intermediary-buffered', knobs: { via: 'nginx-buffered', tokens: 100 }, needs: 'nginx' },
  gzip: { label: 'Gzip buffering', expect: 'intermediary-buffered', knobs: { gzip: true, tokens: 100 } },
  bursty: { label: 'Provider streams in bursts', expect: 'provider-bursts', knobs: { burstMs: 450, tokenMs: 8, tokens: 400 } },
  serverHold: { label: 'Server holds its stream', expect: 'server-buffered', knobs: { serverHold: true, tokens: 60 } },
  empty: { label: 'Empty answer (prompt over context)', expect: 'insufficient-evidence', knobs: { empty: true } },
  markdown: { label: 'Slow markdown render', expect: 'client-render-bound', knobs: { render: 'markdown', renderCost: 40, tokens: 60 } },
  growing: { label: 'Re-render that grows with the answer', expect: 'client-render-growing', knobs: { render: 'markdown', growCost: 5, tokens: 380, tokenMs: 10 } },
  // Heavy enough that a fast machine falls behind too: 200 lines, a delta every 2 ms.
  highlighter: { label: 'Heavy syntax highlighter', expect: 'page-stall', knobs: { render: 'highlight', content: 'code', tokens: 1800, tokenMs: 2 } },
  conversation: { label: 'Long conversation re-rendered', expect: 'conversation-weight', knobs: { render: 'conversation', growCost: 3, tokens: 200, tokenMs: 10 }, turns: 7 },
  throttled: { label: 'Throttled UI', expect: 'client-render-bound', knobs: { render: 'throttled', throttle: 300 } },
  buffered: { label: 'Client buffers whole answer', expect: 'client-buffers-whole-answer', knobs: { render: 'buffered' } },
  typing: { label: 'Typing slower than the stream', expect: 'client-smoothing', knobs: { render: 'typewriter', cps: 50, tokenMs: 20, tokens: 60 } },
  reasoning: { label: 'Reasoning model', expect: 'reasoning-delay', knobs: { reasoning: 80, tokens: 40 } },
  sharedServer: { label: 'Shared server: one slow decode step', expect: 'decode-stall', knobs: { stallEvery: 30, stallMs: 600, tokens: 60 } },
  free: { label: 'Free mode', expect: null, knobs: {} },
};
let scenario = 'healthy';

const KNOB_IDS = Object.keys(BASE);
function setKnobs(values) {
  for (const id of KNOB_IDS) {
    const el = $(id);
    const v = values[id] ?? BASE[id];
    if (el.type === 'checkbox') el.checked = Boolean(v);
    else el.value = String(v);
  }
}
function knobs() {
  const k = {};
  for (const id of KNOB_IDS) {
    const el = $(id);
    k[id] = el.type === 'checkbox' ? el.checked : el.tagName === 'SELECT' ? el.value : Number(el.value);
  }
  return k;
}

function pick(name) {
  scenario = name;
  const s = SCENARIOS[name];
  for (const b of $('scenarios').children) b.setAttribute('aria-checked', String(b.dataset.name === name));
  if (name !== 'free') setKnobs(s.knobs);
  $('free').open = name === 'free';
  if (s.prompt) $('prompt').value = s.prompt;
  else if ($('prompt').value === LONG_PROMPT) $('prompt').value = 'Where does the latency of a streamed answer go?';
}

for (const [name, s] of Object.entries(SCENARIOS)) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = s.label;
  b.dataset.name = name;
  b.setAttribute('role', 'radio');
  if (s.needs === 'nginx' && !lab.nginx) {
    b.disabled = true;
    b.title = 'needs nginx (apt-get install nginx-light)';
  }
  b.addEventListener('click', () => pick(name));
  $('scenarios').append(b);
}
pick('healthy');
for (const id of KNOB_IDS) $(id).addEventListener('change', () => scenario !== 'free' && pick('free'));

// --- the app: send a prompt, read the stream, render ----------------------------------------

$('ask').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('send').disabled = true;
  try {
    const load = SCENARIOS[scenario].load;
    const turns = SCENARIOS[scenario].turns;
    // A named scenario starts on an empty chat, so that it shows its own failure mode whatever
    // was sent before (earlier answers kept on the page weigh on every re-render: issue 59);
    // free mode keeps the conversation, as a chat app does. Reports stay in the list.
    if (scenario !== 'free') messages.replaceChildren();
    if (load) await runLoad(load.n, load.c, true);
    else if (turns) await converse(turns, $('prompt').value);
    else await ask($('prompt').value);
  } catch (e) {
    bubble('assistant').textContent = `Error: ${e.message}`;
  } finally {
    $('send').disabled = false;
  }
});

$('runLoad').addEventListener('click', () => runLoad(Number($('loadN').value), Number($('loadC').value), false));

// The markdown source of each answer shown (the conversation render mode re-renders them all).
const sources = new WeakMap();

/**
 * A conversation of `turns` earlier turns, then `prompt`: the first answer streams into an
 * empty chat (the page's answer in a short conversation), copies of it stay as the history.
 */
async function converse(turns, prompt) {
  messages.replaceChildren();
  await ask('A first question');
  const first = messages.lastElementChild;
  for (let i = 1; i < turns; i++) {
    bubble('user', `An earlier question, number ${i + 1}`);
    const a = bubble('assistant');
    a.innerHTML = first.innerHTML;
    sources.set(a, sources.get(first) ?? first.textContent);
  }
  await ask(prompt);
}

function bubble(role, text = '') {
  const div = document.createElement('div');
  div.className = `msg ${role}`;
  div.textContent = text;
  messages.append(div);
  messages.scrollTop = messages.scrollHeight;
  return div;
}

function request(prompt, k) {
  const messagesBody = [{ role: 'user', content: prompt }];
  if ($('useOwn').checked && $('baseUrl').value) {
    const target = `${$('baseUrl').value.replace(/\/+$/, '')}/chat/completions`;
    const headers = { 'content-type': 'application/json' };
    if ($('apiKey').value) headers.authorization = `Bearer ${$('apiKey').value}`;
    // A server that never stops (a model with no end of text) still ends: at max tokens.
    const max = Number($('maxTokens').value) || undefined;
    const body = JSON.stringify({ model: $('model').value || undefined, stream: true, stream_options: { include_usage: true }, max_tokens: max, messages: messagesBody });
    if ($('ownVia').value === 'proxy') return ['/proxy', { method: 'POST', headers: { ...headers, 'x-target-url': target }, body }];
    return [target, { method: 'POST', headers, body }];
  }
  const q = new URLSearchParams({
    ttft_ms: k.ttft, token_ms: k.tokenMs, jitter_ms: k.jitter, tokens: k.tokens, reasoning: k.reasoning,
    stall_every: k.stallEvery, stall_ms: k.stallMs, prefill_per_token_ms: k.prefillPerToken, slots: k.slots,
    format: k.format, coalesce_bytes: k.coalesce, flush_ms: k.flushMs, burst_ms: k.burstMs, gzip: k.gzip ? 1 : 0,
  });
  if (k.metrics) q.set('metrics', 'vllm');
  // A sweep shares the built-in server: its slots, batching and llama.cpp's timings.
  for (const [name, value] of Object.entries(k.shared || {})) q.set(name, String(value));
  if (k.serverTiming) q.set('server_timing', 'header');
  if (k.serverHold) q.set('server_hold', '1');
  if (k.empty) q.set('empty', '1');
  if (k.content !== 'words') q.set('content', k.content);
  // A code block of about the tokens asked for (nine to a line).
  if (k.content === 'code') q.set('lines', String(Math.max(1, Math.ceil(k.tokens / 9))));
  const path = `/v1/chat/completions?${q}`;
  const base = k.via === 'direct' || !lab.nginx ? '' : `${lab.nginx}/${k.via === 'nginx-buffered' ? 'buffered' : 'unbuffered'}`;
  return [base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tokenpaint-sim', stream: true, messages: messagesBody }) }];
}

// The stop button aborts the answer being read: the report says `aborted`, with what was
// measured until then.
let stopping = null;
$('stop').addEventListener('click', () => stopping && stopping.abort());

async function ask(prompt, quiet = false, signal = null) {
  const k = { ...knobs(), shared: sweepShared };
  if (!quiet) bubble('user', prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt);
  const out = bubble('assistant');
  const show = renderer(k, out);
  const [url, init] = request(prompt, k);
  const ctrl = new AbortController();
  signal?.addEventListener('abort', () => ctrl.abort());
  if (!quiet) {
    stopping = ctrl;
    $('stop').disabled = false;
  }
  const seen = {};
  try {
    for await (const piece of deltas(await receive(url, { ...init, signal: ctrl.signal }), seen)) {
      // The app's own record of when it got its first delta (the page tests' truth).
      if (!out.dataset.firstDeltaAt) out.dataset.firstDeltaAt = String(performance.now());
      show.push(piece);
    }
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
    out.dataset.stopped = 'true';
  } finally {
    if (stopping === ctrl) {
      stopping = null;
      $('stop').disabled = true;
    }
  }
  // The built-in server's own record of its wait for a slot (an SSE comment).
  if (seen.slotWaitMs !== undefined) out.dataset.slotWaitMs = String(seen.slotWaitMs);
  await show.end();
  return out;
}

// --- transports: the same request over fetch, XHR, EventSource, WebSocket or Socket.IO ------
// Each gives the app a stream of the body as the server sent it (for the sockets: their
// messages as server-sent events), which the app reads as before.

const TRANSPORT_NOTES = {
  fetch: '',
  xhr: 'POST over XMLHttpRequest, read from responseText as it grows (as sse.js does)',
  eventsource: 'GET: the prompt is not sent (its length is), and any format works',
  websocket: 'the simulator only: OpenAI chunks, one message each; no proxy path, no gzip',
  'socket.io': 'the simulator only: Open WebUI 0.12 events (a delta per token); no proxy path, no gzip',
};
$('transport').addEventListener('change', () => ($('transportNote').textContent = TRANSPORT_NOTES[transport()]));

const encoder = new TextEncoder();

async function receive(url, init) {
  switch (transport()) {
    case 'xhr':
      return new ReadableStream({ start: (c) => overXhr(url, init, c) });
    case 'eventsource':
      return new ReadableStream({ start: (c) => overEventSource(url, init, c) });
    case 'websocket':
      return new ReadableStream({ start: (c) => overWebSocket(url, init, c) });
    case 'socket.io':
      return new ReadableStream({ start: (c) => overSocketIo(url, init, c) });
    default: {
      const res = await profiler.fetch(url, init);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return res.body;
    }
  }
}

function overXhr(url, init, c) {
  const xhr = new XMLHttpRequest();
  let seen = 0;
  const take = () => {
    const text = xhr.responseText;
    if (text.length > seen) c.enqueue(encoder.encode(text.slice(seen)));
    seen = text.length;
  };
  xhr.open(init.method || 'GET', url);
  for (const [name, value] of Object.entries(init.headers || {})) xhr.setRequestHeader(name, value);
  xhr.onprogress = take;
  xhr.onloadend = () => {
    take();
    if (xhr.status >= 200 && xhr.status < 300) c.close();
    else c.error(new Error(xhr.status ? `HTTP ${xhr.status}` : 'network error'));
  };
  xhr.send(init.body);
}

// The named events of the formats the simulator speaks (an EventSource only hands a named event
// to listeners of that name).
const NAMED = ['response.output_text.delta', 'response.reasoning_summary_text.delta', 'response.created', 'response.completed', 'message_start', 'content_block_delta', 'message_delta', 'message_stop'];

function overEventSource(url, init, c) {
  const full = new URL(url, location.href);
  full.searchParams.set('prompt_chars', String(JSON.stringify(JSON.parse(init.body || '{}').messages || []).length));
  const es = new EventSource(full);
  const on = (e) => {
    if (e.data === '[DONE]') return finish();
    c.enqueue(encoder.encode(`data: ${e.data.split('\n').join('\ndata: ')}\n\n`));
  };
  const finish = () => {
    es.close();
    c.close();
  };
  es.addEventListener('message', on);
  for (const name of NAMED) es.addEventListener(name, on);
  // The server ends the stream: the EventSource would reconnect; the answer is over.
  es.onerror = finish;
}

function socketAsk(url, init) {
  return { query: new URL(url, location.href).search.slice(1), body: JSON.parse(init.body || '{}') };
}

function overWebSocket(url, init, c) {
  const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/v1/ws`);
  ws.onopen = () => ws.send(JSON.stringify(socketAsk(url, init)));
  ws.onmessage = (e) => {
    if (e.data === '[DONE]') return ws.close(1000);
    c.enqueue(encoder.encode(`data: ${e.data}\n\n`));
  };
  ws.onclose = () => c.close();
}

let socketIo = null;
async function overSocketIo(url, init, c) {
  // Loaded on first use, after instrument(): socket.io-client keeps the WebSocket it finds.
  socketIo ??= import('/vendor/socket.io.esm.min.js');
  const { io } = await socketIo;
  const socket = io({ transports: ['websocket'], reconnection: false, forceNew: true });
  let text = '';
  socket.on('connect', () => socket.emit('ask', { id: `m${Date.now()}`, ...socketAsk(url, init) }));
  socket.on('events', ({ data }) => {
    const d = data.data;
    // As Open WebUI 0.12's frontend: a delta is appended; the last event has the whole text.
    let next = text;
    if (data.type === 'response:completion' && typeof d.delta === 'string') next = text + d.delta;
    else if (data.type === 'chat:completion' && d.done) next = d.output.flatMap((o) => o.content).map((x) => x.text).join('');
    if (next.length > text.length) c.enqueue(encoder.encode(`data: ${JSON.stringify({ choices: [{ delta: { content: next.slice(text.length) } }] })}\n\n`));
    text = next;
    if (data.type === 'chat:completion' && d.done) socket.disconnect();
  });
  socket.on('disconnect', () => c.close());
}

async function runLoad(n, c, scenarioLoad) {
  $('loadStatus').textContent = `running ${n} requests, ${c} at a time…`;
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await ask(`Request ${next} of a load test`, true).catch(() => {});
    }
  };
  await Promise.all(Array.from({ length: Math.min(c, n) }, worker));
  $('loadStatus').textContent = `${n} requests done`;
  if (!scenarioLoad) showSummary(profiler.summary());
}

// --- the concurrency sweep: at each level, the other streams come from the demo server (off
// this page, as a load generator makes them) while the page profiles its answers in turn ------

let sweepShared = null;
let sweeping = null;
$('runSweep').addEventListener('click', () => {
  runSweep().catch((e) => ($('sweepStatus').textContent = `The sweep stopped: ${e.message}`));
});
$('stopSweep').addEventListener('click', () => sweeping?.abort());

const post = async (path, body) => {
  const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const o = await res.json();
  if (!res.ok) throw new Error(o.error || `HTTP ${res.status}`);
  return o;
};

/** The next report after the `before` first, within 30 s. */
async function nextReport(before) {
  for (let waited = 0; waited < 30000; waited += 50) {
    const all = profiler.reports();
    if (all.length > before) return all.at(-1);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no report came for an answer');
}

async function runSweep() {
  const clamp = (v, lo, hi, d) => Math.min(hi, Math.max(lo, Math.floor(Number(v)) || d));
  const cap = clamp($('sweepCap').value, 1, 64, 16);
  const answers = clamp($('sweepAnswers').value, 1, 20, 4);
  const levels = [...new Set($('sweepLevels').value.split(/[\s,]+/).map(Number).filter((n) => Number.isInteger(n) && n >= 1 && n - 1 <= cap))].sort((a, b) => a - b);
  if (!levels.length) return ($('sweepStatus').textContent = `No level: give streams at once from 1 to ${cap + 1}.`);
  const own = $('useOwn').checked && $('baseUrl').value;
  const k = knobs();
  sweepShared = own ? null : { slots: k.slots || 4, batch: 0.1, metrics: 'llamacpp', pool: `sweep-${Date.now()}` };
  const ctrl = new AbortController();
  sweeping = ctrl;
  $('runSweep').disabled = true;
  $('stopSweep').disabled = false;
  $('sweepWhere').textContent = own ? `against ${$('baseUrl').value}` : `the built-in server, ${sweepShared.slots} slots`;
  const results = [];
  try {
    for (const level of levels) {
      if (ctrl.signal.aborted) break;
      $('sweepStatus').textContent = `${level} at once: starting ${level - 1} other streams…`;
      // The same request as the page's, sent by the demo server (to your server directly, not
      // through its proxy).
      const [url, init] = request('A background request of the concurrency sweep', { ...k, shared: sweepShared });
      const headers = { ...init.headers };
      const target = headers['x-target-url'] || url;
      delete headers['x-target-url'];
      const load = level > 1 ? await post('/load/start', { url: target, init: { method: init.method, headers, body: init.body }, concurrency: level - 1, cap }) : null;
      const entries = [];
      try {
        // Let the other streams take their places first.
        if (load) await new Promise((r) => setTimeout(r, 500));
        for (let i = 0; i < answers && !ctrl.signal.aborted; i++) {
          $('sweepStatus').textContent = `${level} at once: answer ${i + 1} of ${answers}…`;
          const before = profiler.reports().length;
          const out = await ask(`Answer ${i + 1} with ${level} streams at once`, true, ctrl.signal);
          const report = await nextReport(before);
          // An answer cut short by the stop button is not a level's figure.
          if (ctrl.signal.aborted) break;
          const wait = Number(out.dataset.slotWaitMs);
          entries.push({ report, truth: { queue: Number.isFinite(wait) ? wait : null } });
        }
      } finally {
        if (load) await post('/load/stop', { id: load.id });
      }
      if (entries.length) results.push(levelStats(level, entries));
      showSweep(results);
    }
    $('sweepStatus').textContent = ctrl.signal.aborted ? `Stopped: ${results.length} levels done.` : `Done: ${results.length} levels.`;
  } finally {
    sweepShared = null;
    sweeping = null;
    $('runSweep').disabled = false;
    $('stopSweep').disabled = true;
  }
}

function showSweep(levels) {
  $('sweep').hidden = false;
  $('sweepSays').textContent = sweepSays(levels);
  const table = $('sweepTable');
  table.replaceChildren();
  sweepRows(levels).forEach((cells, i) => {
    const tr = table.insertRow();
    for (const c of cells) {
      const td = document.createElement(i === 0 ? 'th' : 'td');
      td.textContent = c;
      tr.append(td);
    }
  });
  const { g, W, H } = canvas('sweepChart', 0.38);
  drawSweep(g, W, H, levels, PHASE_COLORS);
  window.tokenpaintSweep = levels; // for the page tests
}

/** The answer text of each event, whatever the format; `seen.slotWaitMs`: the built-in server's
 * wait for a slot, from its closing comment. */
async function* deltas(body, seen = {}) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    const lines = buf.split('\n');
    buf = lines.pop();
    for (const raw of lines) {
      const line = raw.replace(/\r$/, '');
      if (line.startsWith(': slot_wait_ms=')) seen.slotWaitMs = Number(line.slice(15));
      const json = line.startsWith('data:') ? line.slice(line[5] === ' ' ? 6 : 5) : line.startsWith('{') ? line : null;
      if (!json || json[0] !== '{') continue;
      let o;
      try {
        o = JSON.parse(json);
      } catch {
        continue;
      }
      const piece =
        o.choices?.[0]?.delta?.content ??
        (o.type === 'response.output_text.delta' || o.type === 'text-delta' ? o.delta : null) ??
        (o.delta?.type === 'text_delta' ? o.delta.text : null) ??
        (o.token && !o.token.special ? o.token.text : null) ??
        (typeof o.content === 'string' && 'stop' in o ? o.content : null) ??
        (o.response || o.message?.content || null);
      if (piece) yield piece;
    }
  }
}

function busy(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* a costly render */
  }
}

/** How the page puts text on screen: push(piece) as deltas come, end() when the stream ends. */
function renderer(k, el) {
  let text = '';
  const paint = (t) => {
    if (k.render === 'markdown') el.innerHTML = marked.parse(t);
    else el.textContent = t;
    // A fixed cost, and one that grows with the text shown (a whole-message re-render).
    if (k.renderCost || k.growCost) busy(k.renderCost + (k.growCost * t.length) / 1000);
  };
  switch (k.render) {
    case 'throttled': {
      let shown = '';
      const timer = setInterval(() => text !== shown && paint((shown = text)), k.throttle);
      return { push: (p) => (text += p), end: async () => (clearInterval(timer), paint(text)) };
    }
    case 'typewriter': {
      let shown = 0;
      let done = null;
      const t0 = performance.now();
      const tick = () => {
        const want = Math.min(text.length, Math.floor(((performance.now() - t0) * k.cps) / 1000));
        if (want > shown) paint(text.slice(0, (shown = want)));
        if (done && shown >= text.length) done();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      return { push: (p) => (text += p), end: () => new Promise((r) => (done = r)) };
    }
    case 'buffered':
      return { push: (p) => (text += p), end: async () => paint(text) };
    case 'markdown':
      return { push: (p) => paint((text += p)), end: async () => {} };
    case 'highlight':
      // Markdown, then the page's highlighter (a script of its own) on its code, in a task
      // after each change.
      return {
        push: (p) => {
          el.innerHTML = marked.parse((text += p));
          window.highlightSoon?.(el);
        },
        end: async () => {},
      };
    case 'conversation': {
      // Every message re-rendered on each delta, as a list that does not memoize its finished
      // messages: the cost per 1,000 characters is over the whole conversation.
      const earlier = [...messages.querySelectorAll('.msg.assistant')].filter((b) => b !== el);
      const held = earlier.reduce((n, b) => n + (sources.get(b) ?? '').length, 0);
      return {
        push: (p) => {
          for (const b of earlier) b.innerHTML = marked.parse(sources.get(b) ?? '');
          el.innerHTML = marked.parse((text += p));
          busy(k.renderCost + (k.growCost * (held + text.length)) / 1000);
        },
        end: async () => sources.set(el, text),
      };
    }
    default:
      return {
        push: (p) => {
          text += p;
          el.append(p);
          if (k.renderCost) busy(k.renderCost);
        },
        end: async () => {},
      };
  }
}

// --- showing the report ----------------------------------------------------------------------

const ms = (v) => (v === null || v === undefined || !Number.isFinite(v) ? '—' : `${v.toFixed(v < 10 ? 1 : 0)} ms`);

function cell(id, value, text = ms(value)) {
  const el = $(id);
  el.textContent = text;
  el.dataset.value = value === null || value === undefined ? '' : String(value);
}

function showReport(r, viewed = null) {
  $('live').hidden = true;
  $('report').hidden = false;
  $('report').dataset.source = viewed ? 'file' : 'live';
  $('scenarioName').textContent = viewed ? viewed.name : SCENARIOS[scenario].label;
  $('report').dataset.reportId = String(r.id);
  $('report').dataset.verdict = r.diagnosis?.[0]?.verdict ?? '';
  cell('ttft-measured', r.ttft);
  cell('ttft-perceived', r.ttftPerceived?.painted);
  cell('ttft-gap', gap(r.ttft, r.ttftPerceived?.painted));
  cell('e2e-measured', r.e2e);
  cell('e2e-perceived', r.e2ePerceived?.painted);
  cell('e2e-gap', gap(r.e2e, r.e2ePerceived?.painted));
  cell('lag', r.lag?.p50, r.lag ? `${ms(r.lag.p50)} / ${ms(r.lag.p95)} / ${ms(r.lag.max)}` : '—');
  // Held arrivals: TPOT and ITL are the buffer's pace (or the busy page's reads), not the speed
  // of generation; the server's own step is beside them when it said it.
  const pace = r.pace && r.pace.of !== 'arrivals' ? ` (${r.pace.of === 'buffer' ? "the buffer's pace" : "the page's late reads"}${r.pace.serverStepMs !== null ? `; server step ${ms(r.pace.serverStepMs)}` : ''})` : '';
  cell('tpot', r.tpot, r.tpot === null ? '—' : ms(r.tpot) + pace);
  cell('itl', r.itl?.p50, r.itl ? `${ms(r.itl.p50)} / ${ms(r.itl.p95)} / ${ms(r.itl.max)}${pace}` : '—');
  $('tpot').dataset.pace = r.pace?.of ?? '';
  cell('tokens-out', r.tokens, `${r.tokens} (${r.tokensSource})`);
  const d = r.delivery;
  cell('delivery', null, d ? d.pattern + (d.interval ? ` every ${ms(d.interval)}` : '') + (d.rate ? ` at ${Math.round(d.rate)} chars/s` : '') : '—');
  cell('matched', r.matchedPct, r.matchedPct === null ? '—' : `${r.matchedPct.toFixed(1)} %`);
  showDiagnosis($('diagnosis'), r.diagnosis || []);
  drawWaterfall(r);
  drawFirstToken(r);
  drawChart(r);
  drawHistogram(r);
  showSummary(viewed ? viewed.summary : profiler.summary());
}

function gap(a, b) {
  return a === null || b === null || b === undefined ? null : b - a;
}


// How each gain is estimated (docs/diagnosis.md).
const GAIN_BASIS = {
  'paint-on-arrival': 'each delta painted in the frame after it arrived',
  'paint-on-arrival-server-pace': 'each delta read at the server’s pace and painted in the next frame',
  'paint-on-arrival-stream-pace': 'each delta read at the pace the stream kept before the page fell behind, and painted in the next frame',
  'no-hold': 'nothing between server and page holds tokens',
  'stall-at-pace': 'the stalled step at the stream’s usual pace',
  'no-queue': 'no wait for a server slot',
  'sent-at-once': 'the request sent without waiting in the browser',
  'without-earlier-text': 'the earlier messages left out of each re-render',
  'at-threshold': 'the phase brought down to where the verdict is no longer given',
};

/** The summary's fixes, worth most first: perceived time gained over all streams. */
function showGains(list, gains) {
  list.replaceChildren(
    ...gains.map((g) => {
      const li = document.createElement('li');
      li.dataset.verdict = g.verdict;
      li.textContent = `${VERDICTS[g.verdict] || g.verdict}: ${g.streams} stream${g.streams === 1 ? '' : 's'}, first text ${ms(g.ttftPerceived)} and whole answers ${ms(g.e2ePerceived)} sooner in all`;
      return li;
    }),
  );
}

function showDiagnosis(list, verdicts) {
  list.replaceChildren(
    ...verdicts.map((v) => {
      const li = document.createElement('li');
      li.dataset.verdict = v.verdict;
      li.className = v.verdict === 'healthy' ? 'ok' : 'bad';
      const ev = Object.entries(v.evidence || {})
        .filter(([, x]) => x !== null)
        .map(([k, x]) => `${k} ${Math.round(x * 10) / 10}`)
        .join(' · ');
      li.innerHTML = '<strong></strong><p class="fix"></p><p class="gain"></p><p class="evidence"></p>';
      li.querySelector('strong').textContent = VERDICTS[v.verdict] || v.verdict;
      li.querySelector('.fix').textContent = v.fix;
      const g = li.querySelector('.gain');
      if (v.gain) {
        g.dataset.ttft = String(v.gain.ttftPerceived);
        g.dataset.e2e = String(v.gain.e2ePerceived);
        const basis = GAIN_BASIS[v.gain.basis] || v.gain.basis;
        // No zeros shown as a gain (issue 59): a hold that moves neither the first text nor the
        // end (the server's layer releasing at its end what it held) is said so.
        const none = !(v.gain.ttftPerceived >= 0.05) && !(v.gain.e2ePerceived >= 0.05);
        g.textContent = none
          ? `Fixed, neither the first text nor the end of the answer would come sooner (an estimate: ${basis}): the text in between would show as it comes.`
          : `Fixed, the user would see the first text ${ms(v.gain.ttftPerceived)} sooner and the whole answer ${ms(v.gain.e2ePerceived)} sooner (an estimate: ${basis}).`;
      } else g.remove();
      li.querySelector('.evidence').textContent = ev;
      return li;
    }),
  );
}

const PHASE_COLORS = { queue: '#a855f7', prefill: '#6366f1', network: '#0ea5e9', decode: '#2563eb', intermediary: '#ef4444', client: '#16a34a', unattributed: '#cbd5e1' };

function drawWaterfall(r) {
  const el = $('waterfall');
  el.replaceChildren();
  if (!r.phases) return;
  const total = r.phasesTotal.ms || 1;
  const parts = [...r.phases.map((p) => ({ ...p })), { name: 'unattributed', ms: Math.max(0, r.phasesTotal.unattributed), source: 'derived' }];
  const bar = document.createElement('div');
  bar.className = 'bar';
  const legend = document.createElement('ul');
  for (const p of parts) {
    const li = document.createElement('li');
    li.innerHTML = `<span class="swatch" style="background:${PHASE_COLORS[p.name]}"></span><b>${p.name}</b> ${p.ms === null ? 'unknown' : ms(p.ms)} <small>${p.source ?? ''}</small>`;
    legend.append(li);
    if (!p.ms || p.ms <= 0) continue;
    const seg = document.createElement('span');
    seg.style.width = `${(100 * p.ms) / total}%`;
    seg.style.background = PHASE_COLORS[p.name];
    seg.title = `${p.name}: ${ms(p.ms)} (${p.source})`;
    bar.append(seg);
  }
  el.append(bar, legend);
  // Buffering delays the first tokens, not the last: the E2E bar cannot show it, so say it.
  // Only what was measured: a bunched pattern with no hold is the page reading late (its main
  // thread busy), or nothing to say (issue 59: "held … 0.0 ms, 0.0 ms on average").
  const i = r.intermediary;
  const note = document.createElement('p');
  note.className = 'held';
  if (i && i.pattern !== 'steady' && (i.heldFirstMs > 0 || i.heldMeanMs > 0)) {
    note.textContent = `An intermediary held tokens (${i.pattern}): the first one ${ms(i.heldFirstMs)}, ${ms(i.heldMeanMs)} on average. That is time to first token the user waited for, even though the end of the answer was not late.`;
  } else if (i && i.pattern !== 'steady' && i.lateReadMs > 0) {
    note.textContent = `The page read the tokens late (${i.pattern}): ${ms(i.lateReadMs)} on average after they reached the browser, its main thread busy. That is the page's time, not an intermediary's.`;
  }
  if (note.textContent) el.append(note);
}

// The first token's path, to the moment it was painted, as the report splits it
// (firstToken): queue and prefill (the server's figures), the rest of the way until it arrived,
// reasoning before the answer, what an intermediary held it, and the page. Buffering shows here:
// it delays the first tokens, not the last.
function drawFirstToken(r) {
  const el = $('firstToken');
  el.replaceChildren();
  const f = r.firstToken;
  if (!f) return;
  const parts = [
    { name: 'queue', ms: f.queue },
    { name: 'prefill', ms: f.prefill },
    { name: 'network', ms: f.network, label: 'network and the rest' },
    ...(f.reasoning ? [{ name: 'decode', ms: f.reasoning, label: 'reasoning' }] : []),
    { name: 'intermediary', ms: f.intermediary, label: 'held by an intermediary' },
    { name: 'client', ms: f.client, label: 'page (arrived to painted)' },
    ...(f.unattributed ? [{ name: 'unattributed', ms: f.unattributed, label: 'not attributed' }] : []),
  ];
  const total = parts.reduce((n, p) => n + (p.ms || 0), 0) || 1;
  const bar = document.createElement('div');
  bar.className = 'bar';
  const legend = document.createElement('ul');
  for (const p of parts) {
    const li = document.createElement('li');
    li.dataset.name = p.name;
    li.dataset.ms = p.ms === null ? '' : String(p.ms);
    const sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = PHASE_COLORS[p.name];
    const b = document.createElement('b');
    b.textContent = p.label || p.name;
    li.append(sw, b, ` ${p.ms === null ? 'unknown' : ms(p.ms)}`);
    legend.append(li);
    if (!p.ms || p.ms <= 0) continue;
    const seg = document.createElement('span');
    seg.style.width = `${(100 * p.ms) / total}%`;
    seg.style.background = PHASE_COLORS[p.name];
    seg.title = `${p.label || p.name}: ${ms(p.ms)}`;
    bar.append(seg);
  }
  el.append(bar, legend);
}

function showSummary(s) {
  if (!s) return;
  $('runs').textContent = `(${s.count} streams${s.goodput ? `, goodput ${Math.round(100 * s.goodput.share)}%` : ''})`;
  showDiagnosis($('summaryDiagnosis'), s.diagnosis || []);
  showGains($('summaryGains'), s.gains || []);
  const rows = [
    ['TTFT measured', s.ttft],
    ['TTFT perceived', s.ttftPerceived],
    ['E2E perceived', s.e2ePerceived],
    ['TPOT', s.tpot],
    ['delivery lag', s.lag],
    ['queue', s.queue],
    ['prefill', s.prefill],
    ['network', s.network],
    ['decode', s.decode],
    ['intermediary', s.intermediary],
    ['client', s.client],
    ['longest freeze', s.freeze],
    ['input (longest)', s.inputDuration],
    ['frames dropped', s.droppedFrames, (v) => (v === null || v === undefined ? '—' : String(Math.round(v)))],
  ].filter(([, p]) => p);
  $('summary').tBodies[0].replaceChildren(
    ...rows.map(([name, p, show = ms]) => {
      const tr = document.createElement('tr');
      tr.innerHTML = `<th>${name}</th>`;
      for (const q of ['p50', 'p90', 'p95', 'p99']) {
        const td = document.createElement('td');
        td.textContent = show(p[q]);
        if (name === 'TTFT measured') td.dataset.q = q;
        tr.append(td);
      }
      return tr;
    }),
  );
}

$('export').addEventListener('click', () => {
  const file = { tokenpaint: 'reports', version: 1, source: 'lab', exportedAt: new Date().toISOString(), reports: profiler.reports(), summaries: [profiler.exportSummary()] };
  saveJson('tokenpaint-reports.json', JSON.stringify(file, null, 2));
});

/** Saves `json` as a file named `name` (a download: nothing leaves the browser). */
function saveJson(name, json) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// The reports shown (those opened, or the live ones) as a trace: open it in ui.perfetto.dev or
// the Performance panel.
$('exportTrace').addEventListener('click', () => {
  const shown = $('report').dataset.source === 'file' ? viewed.reports.map((x) => x.r) : profiler.reports();
  saveJson('tokenpaint-trace.json', JSON.stringify(traceOf(shown)));
});

// --- The viewer: saved reports, drawn as live ones are ---------------------------------------

/**
 * The reports, saved timelines and exported summaries in a saved file's JSON: one report, an
 * array of them (`profiler.reports()`), an export of the lab, the extension or the Playwright
 * helper (`{ reports, summaries }`), a saved timeline or an array of them, or an exported summary
 * alone (`exportSummary()`'s text). A report that carries its saved timeline (`saveTimeline:
 * true`) is among the timelines: it is analysed again by this build.
 */
export function readSaved(text) {
  const isReport = (x) => x && typeof x === 'object' && 'diagnosis' in x && 'id' in x;
  const isTimeline = (x) => x && typeof x === 'object' && x.tokenpaint === 'timeline';
  const sort = (list) => ({
    reports: list.filter((x) => isReport(x) && !isTimeline(x.saved)),
    timelines: list.filter((x) => isTimeline(x) || (isReport(x) && isTimeline(x.saved))),
  });
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(v)) return v.every((x) => isReport(x) || isTimeline(x)) ? { ...sort(v), summaries: [] } : null;
  if (isReport(v) || isTimeline(v)) return { ...sort([v]), summaries: [] };
  if (v && Array.isArray(v.reports)) {
    const summaries = Array.isArray(v.summaries) ? v.summaries.filter((s) => typeof s === 'string') : [];
    return { ...sort(v.reports), summaries };
  }
  // An exported summary is itself JSON: a fresh profiler tells whether it reads.
  const p = new Profiler();
  const ok = p.mergeSummary(text);
  p.close();
  return ok ? { reports: [], timelines: [], summaries: [text] } : null;
}

const viewed = { reports: [], summary: null, name: '' };

/**
 * Opens saved files: their reports in the picker (saved timelines analysed again by this build,
 * in the analysis module, loaded then), their summaries merged, the last report drawn.
 */
async function openSaved(files) {
  const reports = [];
  const viewer = new Profiler();
  let merged = 0;
  let again = 0;
  let analyst = null;
  const bad = [];
  for (const f of files) {
    const got = readSaved(await f.text());
    if (!got) {
      bad.push(f.name);
      continue;
    }
    reports.push(...got.reports.map((r) => ({ r, file: f.name })));
    for (const t of got.timelines) {
      // The analysis module loads only when a file holds saved timelines.
      if (!analyst) analyst = await (await import('/js/analyse.js')).createAnalyst();
      const { report, error } = analyst.analyse(t);
      if (report) {
        // A report that carried its timeline: what the page's own build concluded, beside.
        const then = t.saved ? t.diagnosis?.[0]?.verdict ?? null : null;
        reports.push({ r: report, file: f.name, again: true, then });
        again++;
      } else bad.push(`${f.name} (${error})`);
    }
    for (const s of got.summaries) merged += viewer.mergeSummary(s) ? 1 : 0;
  }
  analyst?.close();
  viewed.reports = reports;
  // Percentiles across what was opened: the exported summaries, or else the reports themselves.
  viewed.summary = merged ? viewer.summary() : summaryOf(reports.map((x) => x.r));
  viewer.close();
  const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
  $('openStatus').textContent = `${n(reports.length, 'report', 'reports')}${merged ? `, ${n(merged, 'summary', 'summaries')}` : ''}${bad.length ? `; not a tokenpaint file: ${bad.join(', ')}` : ''}`;
  $('openStatus').dataset.count = String(reports.length);
  $('openStatus').dataset.again = String(again);
  const pick = $('pick');
  pick.replaceChildren(
    ...reports.map(({ r, file }, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = `${i + 1}. ${r.diagnosis?.[0]?.verdict ?? r.status} (${file}, ${r.url || 'no URL'})`;
      return o;
    }),
  );
  $('pickLabel').hidden = reports.length < 2;
  if (reports.length) {
    pick.value = String(reports.length - 1);
    showViewed(reports.length - 1);
  } else if (viewed.summary) {
    $('report').hidden = false;
    showSummary(viewed.summary);
  }
}

function showViewed(i) {
  const x = viewed.reports[i];
  // A saved timeline's report is this build's analysis of it, not the one the page had.
  // When the verdict changed since, the page's own is named: the data gained from the newer build.
  const then = x && x.then && x.then !== x.r.diagnosis?.[0]?.verdict ? ` (the page's build said ${x.then})` : '';
  if (x) showReport(x.r, { name: `${x.file}, report ${i + 1} of ${viewed.reports.length}${x.again ? `, analysed again by this build${then}` : ''}`, summary: viewed.summary });
}

/** Percentiles across reports (nearest rank), in the summary's shape, for files without one. */
function summaryOf(reports) {
  if (!reports.length) return null;
  const q = (values, p) => {
    const v = values.filter(Number.isFinite).sort((a, b) => a - b);
    return v.length ? v[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)] : null;
  };
  const of = (f) => {
    const values = reports.map((r) => {
      try {
        return f(r);
      } catch {
        return null;
      }
    });
    return { p50: q(values, 0.5), p90: q(values, 0.9), p95: q(values, 0.95), p99: q(values, 0.99) };
  };
  const phase = (name) => of((r) => r.phases.find((p) => p.name === name).ms);
  return {
    count: reports.length,
    ttft: of((r) => r.ttft),
    ttftPerceived: of((r) => r.ttftPerceived.painted),
    e2ePerceived: of((r) => r.e2ePerceived.painted),
    tpot: of((r) => r.tpot),
    lag: of((r) => r.lag.p50),
    queue: phase('queue'),
    prefill: phase('prefill'),
    network: phase('network'),
    decode: phase('decode'),
    intermediary: phase('intermediary'),
    client: phase('client'),
    freeze: of((r) => (r.stalls ? (r.stalls.longest ?? 0) : null)),
    inputDuration: of((r) => r.input.durationMaxMs),
    droppedFrames: of((r) => r.frames.dropped),
    diagnosis: [],
    gains: [],
  };
}

$('open').addEventListener('change', (e) => e.target.files.length && openSaved([...e.target.files]));
$('pick').addEventListener('change', (e) => showViewed(Number(e.target.value)));
addEventListener('dragover', (e) => e.preventDefault());
addEventListener('drop', (e) => {
  if (!e.dataTransfer || !e.dataTransfer.files.length) return;
  e.preventDefault();
  openSaved([...e.dataTransfer.files]);
});

function canvas(id, ratio) {
  const c = $(id);
  const dpr = window.devicePixelRatio || 1;
  const W = c.clientWidth || 640;
  const H = Math.round(W * ratio);
  c.width = W * dpr;
  c.height = H * dpr;
  const g = c.getContext('2d');
  g.scale(dpr, dpr);
  g.clearRect(0, 0, W, H);
  return { g, W, H };
}

function drawHistogram(r) {
  const { g, W, H } = canvas('histogram', 0.18);
  const a = r.timeline?.arrived || [];
  const gaps = a.slice(1).map((t, i) => t - a[i]).filter((x) => x !== null && Number.isFinite(x));
  if (!gaps.length) return;
  const max = Math.max(...gaps, 1);
  const bins = 30;
  const counts = new Array(bins).fill(0);
  for (const x of gaps) counts[Math.min(bins - 1, Math.floor((x / max) * bins))]++;
  const top = Math.max(...counts);
  const bw = (W - 40) / bins;
  g.fillStyle = '#2563eb';
  counts.forEach((c, i) => g.fillRect(30 + i * bw, H - 18 - ((H - 28) * c) / top, bw - 2, ((H - 28) * c) / top));
  g.fillStyle = '#475569';
  g.font = '11px system-ui, sans-serif';
  g.fillText('0', 30, H - 4);
  g.textAlign = 'right';
  g.fillText(`${Math.round(max)} ms`, W - 10, H - 4);
}

// The chart while the answer streams: arrived and painted so far, the backlog between them.
let liveColors = null;
function drawLive(points, p) {
  $('live').hidden = false;
  $('liveStatus').textContent = `${p.arrived} characters arrived, ${p.painted} painted, backlog ${p.backlog}${p.lag === null ? '' : `, lag ${ms(p.lag)}`}`;
  const { g, W, H } = canvas('liveChart', 0.3);
  $('liveChart').dataset.livePoints = String(points.length);
  const pad = { l: 44, r: 10, t: 10, b: 20 };
  const tMax = Math.max(1000, points[points.length - 1][0] * 1.1);
  const top = Math.max(1, ...points.map((q) => q[1])) * 1.1;
  const x = (t) => pad.l + (t / tMax) * (W - pad.l - pad.r);
  const y = (c) => H - pad.b - (c / top) * (H - pad.t - pad.b);
  if (!liveColors) {
    const cs = getComputedStyle(document.documentElement);
    liveColors = Object.fromEntries(['--backlog', '--arrived', '--painted'].map((v) => [v, cs.getPropertyValue(v).trim()]));
  }
  g.fillStyle = liveColors['--backlog'];
  g.beginPath();
  g.moveTo(x(points[0][0]), y(points[0][1]));
  for (const [t, a] of points) g.lineTo(x(t), y(a));
  for (let i = points.length - 1; i >= 0; i--) g.lineTo(x(points[i][0]), y(points[i][2]));
  g.fill();
  for (const [k, color] of [[1, '--arrived'], [2, '--painted']]) {
    g.beginPath();
    g.strokeStyle = liveColors[color];
    g.lineWidth = 2;
    points.forEach((q, i) => (i ? g.lineTo(x(q[0]), y(q[k])) : g.moveTo(x(q[0]), y(q[k]))));
    g.stroke();
  }
}

// Cumulative characters over time: arrived, committed, painted; the gap between arrived and
// painted (the backlog) is shaded; stalls are marked.
function drawChart(r) {
  const { g, W, H } = canvas('chart', 0.4);
  const tl = r.timeline;
  if (!tl || !tl.arrived.length) return;
  const pad = { l: 44, r: 10, t: 10, b: 26 };
  const times = [...tl.arrived, ...tl.painted].filter((v) => v !== null);
  const tMax = Math.max(...times) * 1.02 || 1;
  const total = tl.chars.reduce((a, b) => a + b, 0) || 1;
  const x = (t) => pad.l + (t / tMax) * (W - pad.l - pad.r);
  const y = (c) => H - pad.b - (c / total) * (H - pad.t - pad.b);
  const series = (ts) => {
    const pts = ts.map((t, i) => [t, tl.chars[i]]).filter(([t]) => t !== null).sort((a, b) => a[0] - b[0]);
    let c = 0;
    return pts.map(([t, n]) => [t, (c += n)]);
  };
  const css = (v) => getComputedStyle(document.documentElement).getPropertyValue(v).trim();
  const step = (pts, color, width) => {
    g.beginPath();
    g.strokeStyle = color;
    g.lineWidth = width;
    let prev = 0;
    g.moveTo(x(0), y(0));
    for (const [t, c] of pts) {
      g.lineTo(x(t), y(prev));
      g.lineTo(x(t), y(c));
      prev = c;
    }
    g.stroke();
  };
  const arrived = series(tl.arrived);
  const painted = series(tl.painted);
  g.fillStyle = css('--backlog');
  g.beginPath();
  g.moveTo(x(0), y(0));
  let prev = 0;
  for (const [t, c] of arrived) {
    g.lineTo(x(t), y(prev));
    g.lineTo(x(t), y(c));
    prev = c;
  }
  g.lineTo(x(tMax), y(prev));
  prev = painted.length ? painted[painted.length - 1][1] : 0;
  g.lineTo(x(tMax), y(prev));
  for (let i = painted.length - 1; i >= 0; i--) {
    const [t, c] = painted[i];
    g.lineTo(x(t), y(c));
    g.lineTo(x(t), y(i > 0 ? painted[i - 1][1] : 0));
  }
  g.lineTo(x(0), y(0));
  g.fill();
  for (const [s, e] of r.stalls?.list || []) {
    g.fillStyle = css('--stall');
    g.fillRect(x(s), H - pad.b - 6, Math.max(2, x(e) - x(s)), 6);
  }
  step(arrived, css('--arrived'), 2);
  step(series(tl.committed), css('--committed'), 1.5);
  step(painted, css('--painted'), 2);
  g.strokeStyle = '#94a3b8';
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(pad.l, pad.t);
  g.lineTo(pad.l, H - pad.b);
  g.lineTo(W - pad.r, H - pad.b);
  g.stroke();
  g.fillStyle = '#475569';
  g.font = '11px system-ui, sans-serif';
  g.textAlign = 'center';
  const tick = niceStep(tMax / 6);
  for (let t = 0; t <= tMax; t += tick) g.fillText(`${Math.round(t)}`, x(t), H - pad.b + 14);
  g.fillText('ms from request start', (pad.l + W) / 2, H - 2);
  g.textAlign = 'right';
  g.fillText(String(total), pad.l - 4, y(total) + 4);
  g.fillText('0', pad.l - 4, y(0));
}

function niceStep(raw) {
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

// --- a slow device: the scenario run by the demo server in a headless Chromium under the
// DevTools CPU throttle (a page cannot slow its own CPU), its report shown here --------------

$('slow').addEventListener('click', async () => {
  const rate = Number($('slowRate').value);
  if (scenario === 'free' || SCENARIOS[scenario].load || SCENARIOS[scenario].turns) {
    $('slowNote').textContent = 'a named scenario of one answer runs on a slow device (not the free mode, the load or the conversation)';
    return;
  }
  $('slow').disabled = true;
  $('slowNote').textContent = `running in a headless Chromium with a ${rate}× slower CPU…`;
  try {
    const res = await fetch('/lab/slow', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario, transport: $('transport').value, rate }) });
    const out = await res.json();
    if (!res.ok) throw new Error(out.error || `HTTP ${res.status}`);
    $('slowNote').textContent = '';
    showReport(out.report, { name: `${SCENARIOS[scenario].label}, on a ${rate}× slower CPU (headless Chromium on the demo server)` });
  } catch (e) {
    $('slowNote').textContent = `cannot run it here: ${e.message}`;
  } finally {
    $('slow').disabled = false;
  }
});

// `?scenario=NAME&transport=T&send=1`: the lab opened on a scenario, sent at once (the slow
// device's run uses it); `window.labReport` holds the report that follows.
{
  const q = new URLSearchParams(location.search);
  if (SCENARIOS[q.get('scenario')]) pick(q.get('scenario'));
  if (q.get('transport')) $('transport').value = q.get('transport');
  if (q.get('send') === '1') {
    profiler.onReport((r) => (window.labReport ??= r));
    $('ask').requestSubmit();
  }
}

// Every handler is attached (the module awaited the core and the lab's configuration first): a
// file given to #open before now would have gone unread. The page tests wait for this.
document.documentElement.dataset.lab = 'ready';
