// Answers over sockets. One socket carries many answers, so each message is read to find the
// answer it belongs to and whether it ends it. Readers, in order:
// - the app's `extract(message) → { id, delta | text, done } | null`;
// - Socket.IO packets (Engine.IO framing, `42["event", …]`), with Open WebUI's `events` (0.12,
//   recorded in tests/fixtures/apps/) and its older `chat-events` read as its frontend reads them;
// - OpenAI chat.completion.chunk JSON per message (an answer per `id`), fed to the core as the
//   SSE events they would be;
// - any other message goes to the learner (learn.js), which finds the answer's path from what
//   the page shows, and from then on reads it.

import { stampOf, bytesOf } from './transports.js';
import { answers } from './answers.js';
import { Learner } from './learn.js';

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
 * One message of Open WebUI's older `chat-events` (`{ chat_id, message_id, data: { type, data } }`) as
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

/**
 * One message of Open WebUI 0.12's `events` (recorded from 0.12.4 in
 * tests/fixtures/apps/open-webui-0.12.4.json) as `{ id, delta | text, done, usage }`, or null.
 * `{ chat_id, message_id, data: { type, data } }`: `response:completion` carries the server's
 * first raw chunk (`choices`), then a `response.output_text.delta` per token; `chat:completion`
 * the finish chunk, the usage, and last `done: true` with the whole answer in
 * `output[].content[].text`. Presence, titles and lists are not answers.
 */
export function openWebUiEvent(payload) {
  const event = payload && payload.data;
  const data = event && event.data;
  if (!data || typeof data !== 'object' || typeof payload.message_id !== 'string') return null;
  const id = payload.message_id;
  if (event.type === 'response:completion') {
    if (data.type === 'response.output_text.delta') return typeof data.delta === 'string' ? { id, delta: data.delta } : null;
    const choice = Array.isArray(data.choices) ? data.choices[0] : null;
    if (choice && choice.delta) return { id, delta: typeof choice.delta.content === 'string' ? choice.delta.content : '' };
    return null;
  }
  if (event.type !== 'chat:completion') return null;
  const out = { id };
  if (data.usage) out.usage = data.usage;
  if (data.done === true) {
    out.done = true;
    const text = outputText(data.output);
    if (text !== null) out.text = text;
    else if (typeof data.content === 'string') out.text = data.content;
  }
  return out.usage || out.done ? out : null;
}

// The text of a Responses-style `output` (`[{ type: 'message', content: [{ text }] }]`).
function outputText(output) {
  if (!Array.isArray(output)) return null;
  let text = null;
  for (const item of output) {
    if (!item || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const c of item.content) if (c && typeof c.text === 'string') text = (text || '') + c.text;
  }
  return text;
}

/**
 * The readers of one socket, in order: the app's extract, Open WebUI's (unless `appReaders:
 * false`), OpenAI chunks, and the learner for what none of them reads.
 */
function socketReaders(p, o) {
  const list = answers(p, o);
  const apps = p.options.appReaders !== false;
  const learning = learner(p, o);
  let readBy = null; // a reader that has read an answer on this socket: no learning then
  return {
    /** A Socket.IO event (`[name, ...args]`). */
    io(args, t, transport) {
      const [name, payload] = args;
      if (o.extract) return list.extracted(o.extract(payload, name), t, transport);
      if (apps) {
        const r = name === 'events' ? openWebUiEvent(payload) : name === 'chat-events' ? openWebUiMessage(payload) : null;
        if (r) {
          readBy = 'open-webui';
          return learning.reader(r, t, transport);
        }
      }
      if (!readBy) learning.event(t, payload, name, transport);
    },
    /** A text or binary message that is not Socket.IO's. */
    message(data, t, transport) {
      if (o.extract) return list.extracted(o.extract(data), t, transport);
      const text = typeof data === 'string' ? data : null;
      if (text !== null && list.openai(text, t, transport)) return void (readBy = 'openai-chat');
      if (!readBy) learning.event(t, text !== null ? text : bytesOf(data), '', transport);
    },
    closeAll(kind, t, message) {
      list.closeAll(kind, t, message);
      learning.closeAll(kind, t, message);
    },
  };
}

/**
 * A socket's learner and the answers it reads. While it learns it is one of the hub's learners
 * (the DOM watch hands it the text of each changed element); once the page has taught it the
 * answer's path, the events it kept are read again, and every later one as it comes. An app
 * reader's answers are kept here too, so that each report says how its answer was read.
 */
function learner(p, o) {
  const l = new Learner();
  let learned = null;
  let read = null;
  let transport = '';
  const teacher = {
    describe: () => ({ url: o.url || '', transport, events: l.seen }),
    shown(text, el) {
      if (!l.shown(text)) return;
      p.learners.delete(teacher);
      if (el) p.watch.expect(el);
      learned = answers(p, { ...o, format: 'learned', read: { by: 'learned', path: l.learned.path } });
      for (const it of l.replay()) learned.extracted(it, it.t, transport);
    },
  };
  return {
    event(t, data, name, via) {
      if (learned) {
        for (const it of l.event(t, data, name)) learned.extracted(it, it.t, via);
        return;
      }
      transport = via;
      l.event(t, data, name);
      p.learners.add(teacher);
    },
    reader(r, t, via) {
      if (!read) {
        p.learners.delete(teacher);
        read = answers(p, { ...o, format: 'open-webui', read: { by: 'reader', format: 'open-webui' } });
      }
      read.extracted(r, t, via);
    },
    closeAll(kind, t, message) {
      p.learners.delete(teacher);
      if (!learned && !read && l.seen) p.unlearned(teacher.describe(), t);
      if (learned) learned.closeAll(kind, t, message);
      if (read) read.closeAll(kind, t, message);
    },
  };
}

/**
 * Profiles a WebSocket: each message (text or binary) is an arrival, read by the readers above.
 * Closing the socket ends every open answer: cleanly (code 1000) as done, else as failed.
 */
export function tapSocket(p, ws, o) {
  const readers = socketReaders(p, { ...o, sentAt: () => sentAt.get(ws) });
  const onData = (data, t) => {
    const io = typeof data === 'string' && !o.extract ? socketIoEvent(data) : null;
    if (io) return readers.io(io, t, 'socket.io');
    readers.message(data, t, 'websocket');
  };
  // Blobs are read in order: each message waits for the one before it.
  let order = Promise.resolve();
  const onMessage = (e) => {
    try {
      const t = stampOf(e);
      const data = e.data;
      if (typeof Blob === 'function' && data instanceof Blob) {
        order = order.then(() => data.arrayBuffer()).then((b) => onData(b, t), () => {});
      } else onData(data, t);
    } catch {
      /* a message tokenpaint cannot read is the app's business, not a reason to fail */
    }
  };
  const onClose = (e) => {
    try {
      const clean = e.code === 1000 && e.wasClean !== false;
      readers.closeAll(clean ? 0 : 2, stampOf(e), `WebSocket closed (code ${e.code})`);
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
  const readers = socketReaders(p, { ...o, sentAt: () => sent });
  socket.onAny((...args) => {
    try {
      readers.io(args, performance.now(), 'socket.io');
    } catch {
      /* tokenpaint's problem */
    }
  });
  socket.on('disconnect', (reason) => {
    try {
      const mine = reason === 'io client disconnect';
      readers.closeAll(mine ? 0 : 2, performance.now(), `Socket.IO disconnected (${reason})`);
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
    session.readers = socketReaders(p, { ...o, sentAt: () => session.sent });
    sessions.set(sid, session);
  }
  const session = sessions.get(sid);
  // A POST poll carries the client's packets (the ask): it is the answer's request.
  if (method === 'POST') return void (session.sent = performance.now());
  const readers = session.readers;
  xhr.addEventListener('load', (e) => {
    try {
      const t = stampOf(e);
      for (const packet of String(xhr.responseText).split('\x1e')) {
        if (packet === '1') {
          readers.closeAll(0, t, '');
          sessions.delete(sid);
          continue;
        }
        const io = socketIoEvent(packet);
        if (io) readers.io(io, t, 'socket.io');
      }
    } catch {
      /* tokenpaint's problem */
    }
  });
}
