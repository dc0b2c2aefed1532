// The same request over fetch, XHR, EventSource, WebSocket or Socket.IO. Each gives the app a
// stream of the body as the server sent it (for the sockets: their messages as server-sent
// events), which the app reads as before; `deltas` reads the answer's text out of it.

import { $, profiler, transport } from '/www/lab.js';

const TRANSPORT_NOTES = {
  fetch: '',
  xhr: 'POST over XMLHttpRequest, read from responseText as it grows (as sse.js does)',
  eventsource: 'GET: the prompt is not sent (its length is), and any format works',
  websocket: 'the simulator only: OpenAI chunks, one message each; no proxy path, no gzip',
  'socket.io': 'the simulator only: Open WebUI 0.12 events (a delta per token); no proxy path, no gzip',
};
$('transport').addEventListener('change', () => ($('transportNote').textContent = TRANSPORT_NOTES[transport()]));

const encoder = new TextEncoder();

export async function receive(url, init) {
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

/** The answer text of each event, whatever the format; `seen.slotWaitMs` and `seen.slotTakenAt`:
 * the built-in server's wait for a slot and when it took one (the machine's clock, ms since the
 * epoch), from its closing comments. */
export async function* deltas(body, seen = {}) {
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
      if (line.startsWith(': slot_taken_at=')) seen.slotTakenAt = Number(line.slice(16));
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
