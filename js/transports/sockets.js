// Answers over sockets. One socket carries many answers, so each message is read to find the
// answer it belongs to and whether it ends it. Readers, in order:
// - the app's `extract(message) → { id, delta | text, done } | null`;
// - Socket.IO packets (Engine.IO framing, `42["event", …]`), with Open WebUI's `chat-events`
//   read as Open WebUI's own frontend reads them;
// - OpenAI chat.completion.chunk JSON per message (an answer per `id`), fed to the core as the
//   SSE events they would be.

import { feed } from '../core/stream.js';
import { stampOf, bytesOf } from './transports.js';

/** When each socket last sent a message (WebSocket.prototype.send, patched by instrument()). */
export const sentAt = new WeakMap();

/** The event of a Socket.IO text packet (`42[…]`, `42/ns,7[…]`) as [name, ...args], or null. */
export function socketIoEvent(text) {
  if (typeof text !== 'string' || !text.startsWith('42')) return null;
  let i = 2;
  if (text[i] === '/') {
    i = text.indexOf(',', i) + 1;
    if (i === 0) return null;
  }
  while (text[i] >= '0' && text[i] <= '9') i++;
  if (text[i] !== '[') return null;
  try {
    const a = JSON.parse(text.slice(i));
    return Array.isArray(a) && typeof a[0] === 'string' ? a : null;
  } catch {
    return null;
  }
}

/**
 * One message of Open WebUI's `chat-events` (`{ chat_id, message_id, data: { type, data } }`) as
 * `{ id, delta | text, done }`, or null. Read as its frontend reads it: `chat:completion`
 * carries the answer so far in `content` (whole snapshots, repeated), or OpenAI `choices` (a
 * `delta`, or a whole `message`), and `done: true` at the end; `chat:message:delta` and
 * `message` carry new text; `chat:message` and `replace` the whole text.
 */
export function openWebUiMessage(payload) {
  const event = payload && payload.data;
  const data = event && event.data;
  if (!data || typeof data !== 'object' || payload.message_id === undefined || payload.message_id === null) return null;
  const id = String(payload.message_id);
  const content = typeof data.content === 'string' ? data.content : null;
  switch (event.type) {
    case 'chat:completion': {
      const choice = Array.isArray(data.choices) ? data.choices[0] : null;
      const out = { id, done: data.done === true };
      if (content !== null) out.text = content;
      else if (choice && choice.delta && typeof choice.delta.content === 'string') out.delta = choice.delta.content;
      else if (choice && choice.message && typeof choice.message.content === 'string') out.text = choice.message.content;
      return out;
    }
    case 'chat:message:delta':
    case 'message':
      return content === null ? null : { id, delta: content };
    case 'chat:message':
    case 'replace':
      return content === null ? null : { id, text: content };
    default:
      return null;
  }
}

/** The answer a chat.completion.chunk message belongs to, and whether it ends it, without parsing it. */
function openaiMessage(text) {
  if (text.trim() === '[DONE]') return { id: null, end: true };
  if (text.indexOf('"choices"') < 0) return null;
  const m = /"id"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text);
  return { id: m ? m[1] : '', done: /"finish_reason"\s*:\s*"/.test(text) };
}

/** The open answers of one socket, each a stream of the core. */
function answers(p, o) {
  const open = new Map();
  let latest = null;
  const start = (id, t, plain, transport) => {
    const headers = new Headers({ 'content-type': plain ? 'text/plain' : 'text/event-stream' });
    const format = plain ? 'text' : o.format || 'openai-chat';
    // The answer's request: the socket's last message out before it (the app's ask), if seen.
    const sent = o.sentAt ? o.sentAt() : undefined;
    const at = typeof sent === 'number' && sent <= t ? { start: sent } : { startUnknown: true };
    const a = { f: feed(p, { status: 200, headers }, { ...o, ...at, format, transport }), text: '', timer: 0, finished: false };
    open.set(id, a);
    return a;
  };
  const close = (id, kind, t, message, doneMarker) => {
    const a = open.get(id);
    open.delete(id);
    if (!a || !a.f) return;
    clearTimeout(a.timer);
    if (doneMarker) a.f.chunk(bytesOf('data: [DONE]\n\n'), t);
    a.f.end(kind, t, message);
  };
  return {
    /** `{ id, delta | text, done }`: `text` is the answer so far; what is new is fed. */
    extracted(r, t, transport) {
      if (!r || typeof r !== 'object') return;
      const id = String(r.id ?? '');
      const a = open.get(id) || start(id, t, true, transport);
      let delta = typeof r.delta === 'string' ? r.delta : '';
      if (typeof r.text === 'string') {
        // A snapshot: what follows the part it shares with the last one is new.
        let same = 0;
        const max = Math.min(a.text.length, r.text.length);
        while (same < max && a.text.charCodeAt(same) === r.text.charCodeAt(same)) same++;
        delta = r.text.slice(same);
        a.text = r.text;
      } else a.text += delta;
      if (delta && a.f) a.f.chunk(bytesOf(delta), t);
      if (r.done) close(id, 0, t, '');
    },
    /** One OpenAI chunk message; the answer ends at `[DONE]` or once messages stop after its finish. */
    openai(text, t, transport) {
      const m = openaiMessage(text);
      if (!m) return;
      // A message without an id (or one that cannot be read) belongs to the answer before it.
      const id = m.id || latest;
      if (id === null) return;
      const a = open.get(id) || (m.id ? start(id, t, false, transport) : null);
      latest = id;
      if (!a) return;
      clearTimeout(a.timer);
      if (m.end) return close(id, 0, t, '', true);
      if (a.f) a.f.chunk(bytesOf(`data: ${text}\n\n`), t);
      // A finish_reason may be followed by the usage chunk.
      if (m.done) a.finished = true;
      if (a.finished) a.timer = setTimeout(() => close(id, 0, t, '', true), 100);
    },
    /** The socket closed: answers that finished are done; the others end as `kind`. */
    closeAll(kind, t, message) {
      for (const [id, a] of [...open]) {
        if (a.finished) close(id, 0, t, '', true);
        else close(id, kind, t, kind ? message : '');
      }
    },
  };
}

/** A Socket.IO event: Open WebUI's chat-events, or the app's extract (payload, event name). */
function socketIoArgs(list, o, args, t) {
  const [name, payload] = args;
  if (o.extract) return list.extracted(o.extract(payload, name), t, 'socket.io');
  if (name === 'chat-events') list.extracted(openWebUiMessage(payload), t, 'socket.io');
}

/**
 * Profiles a WebSocket: each message (text or binary) is an arrival, read by the readers above.
 * Closing the socket ends every open answer: cleanly (code 1000) as done, else as failed.
 */
export function tapSocket(p, ws, o) {
  const list = answers(p, { ...o, sentAt: () => sentAt.get(ws) });
  const onText = (data, t) => {
    if (o.extract) return list.extracted(o.extract(data), t, 'websocket');
    const io = typeof data === 'string' ? socketIoEvent(data) : null;
    if (io) return socketIoArgs(list, o, io, t);
    if (typeof data !== 'string') data = new TextDecoder().decode(bytesOf(data) || new Uint8Array());
    list.openai(data, t, 'websocket');
  };
  // Blobs are read in order: each message waits for the one before it.
  let order = Promise.resolve();
  const onMessage = (e) => {
    try {
      const t = stampOf(e);
      const data = e.data;
      if (typeof Blob === 'function' && data instanceof Blob) {
        order = order.then(() => data.arrayBuffer()).then((b) => onText(b, t), () => {});
      } else onText(data, t);
    } catch {
      /* a message tokenpaint cannot read is the app's business, not a reason to fail */
    }
  };
  const onClose = (e) => {
    try {
      const clean = e.code === 1000 && e.wasClean !== false;
      list.closeAll(clean ? 0 : 2, stampOf(e), `WebSocket closed (code ${e.code})`);
    } catch {
      /* tokenpaint's problem */
    }
  };
  ws.addEventListener('message', onMessage);
  ws.addEventListener('close', onClose);
}

/**
 * Profiles a socket.io-client Socket, whatever its transport (WebSocket or polling): every
 * event it receives, through `onAny`, which Socket.IO calls before the app's own listeners.
 * A disconnect ends every open answer (by the app's `disconnect()`: done; else failed).
 */
export function tapSocketIo(p, socket, o) {
  let sent;
  if (typeof socket.onAnyOutgoing === 'function') socket.onAnyOutgoing(() => (sent = performance.now()));
  const list = answers(p, { ...o, sentAt: () => sent });
  socket.onAny((...args) => {
    try {
      socketIoArgs(list, o, args, performance.now());
    } catch {
      /* tokenpaint's problem */
    }
  });
  socket.on('disconnect', (reason) => {
    try {
      const mine = reason === 'io client disconnect';
      list.closeAll(mine ? 0 : 2, performance.now(), `Socket.IO disconnected (${reason})`);
    } catch {
      /* tokenpaint's problem */
    }
  });
}

// The Socket.IO sessions read over HTTP long-polling, by profiler and Engine.IO session id.
const polled = new WeakMap();

/**
 * Profiles one Engine.IO long-polling request (`?EIO=4&transport=polling&sid=…`). A GET
 * carries what the server sends: its packets, separated by U+001E, are read as a socket's
 * messages, and the answers of one session go on across its polls; a close packet ends them. A
 * POST carries what the client sends: its time is the next answer's request start.
 */
export function tapPolling(p, xhr, o, url, method) {
  let sid = null;
  try {
    sid = new URL(url, globalThis.location ? globalThis.location.href : undefined).searchParams.get('sid');
  } catch {
    return;
  }
  if (!sid) return; // the handshake: no answer in it
  let sessions = polled.get(p);
  if (!sessions) polled.set(p, (sessions = new Map()));
  if (!sessions.has(sid)) {
    const session = { sent: undefined };
    session.list = answers(p, { ...o, sentAt: () => session.sent });
    sessions.set(sid, session);
  }
  const session = sessions.get(sid);
  // A POST poll carries the client's packets (the ask): it is the answer's request.
  if (method === 'POST') return void (session.sent = performance.now());
  const list = session.list;
  xhr.addEventListener('load', (e) => {
    try {
      const t = stampOf(e);
      for (const packet of String(xhr.responseText).split('\x1e')) {
        if (packet === '1') {
          list.closeAll(0, t, '');
          sessions.delete(sid);
          continue;
        }
        const io = socketIoEvent(packet);
        if (io) socketIoArgs(list, o, io, t);
      }
    } catch {
      /* tokenpaint's problem */
    }
  });
}
