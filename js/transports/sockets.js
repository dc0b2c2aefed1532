// Answers over sockets. One socket carries many answers, so each message is read to find the
// answer it belongs to and whether it ends it. Readers, in order:
// - the app's `extract(message) → { id, delta | text, done } | null`;
// - OpenAI chat.completion.chunk JSON per message (an answer per `id`), fed to the core as the
//   SSE events they would be;
// - Socket.IO packets (Engine.IO framing, `42["event", …]`) and any other message go to the
//   learning chunk (js/core/learning.js): Open WebUI's `events` (0.12, recorded in
//   tests/recordings/) read as its frontend reads them, else the learner (learn.js), which finds
//   the answer's path from what the page shows, and from then on reads it.

import { stampOf, bytesOf } from './transports.js';
import { answers } from './answers.js';
import { END_COMPLETE, END_FAILED } from '../words.js';

/** @typedef {import('../core/hub.js').Hub} Hub */
/**
 * A socket's options: the stream options, and the app's `extract` (its reader of a message).
 * @typedef {import('./answers.js').AnswerOptions & { extract?: (message: unknown, event?: string) => import('./answers.js').Item | null | undefined }} SocketOptions
 */

/**
 * When each socket last sent a message (WebSocket.prototype.send, patched by instrument()).
 * @type {WeakMap<WebSocket, number>}
 */
export const sentAt = new WeakMap();

/**
 * The event of a Socket.IO text packet (`42[…]`, `42/ns,7[…]`) as [name, ...args], or null.
 * @param {unknown} text
 * @returns {[string, ...unknown[]] | null}
 */
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
    return Array.isArray(a) && typeof a[0] === 'string' ? /** @type {[string, ...unknown[]]} */ (a) : null;
  } catch {
    return null;
  }
}

/**
 * The readers of one socket, in order: the app's extract, OpenAI chunks, and the learning chunk
 * (learning.js: Open WebUI's reader, unless `appReaders: false`, and the learner) for the rest.
 * @param {Hub} p
 * @param {SocketOptions} o
 */
function socketReaders(p, o) {
  const list = answers(p, o);
  const learning = p.learning.socket(o);
  let openai = false; // OpenAI chunks were read on this socket: nothing to learn
  return {
    /**
     * A Socket.IO event (`[name, ...args]`).
     * @param {[string, ...unknown[]]} args
     * @param {number} t
     * @param {import('../report.js').StreamReport['transport']} transport
     */
    io(args, t, transport) {
      const [name, payload] = args;
      if (o.extract) return list.extracted(o.extract(payload, name), t, transport);
      learning.event(t, payload, name, transport);
    },
    /**
     * A text or binary message that is not Socket.IO's.
     * @param {unknown} data
     * @param {number} t
     * @param {import('../report.js').StreamReport['transport']} transport
     */
    message(data, t, transport) {
      if (o.extract) return list.extracted(o.extract(data), t, transport);
      const text = typeof data === 'string' ? data : null;
      if (text !== null && list.openai(text, t, transport)) return void (openai = true);
      if (!openai) learning.event(t, text !== null ? text : bytesOf(data), '', transport);
    },
    /**
     * @param {number} kind
     * @param {number} t
     * @param {string} message
     */
    closeAll(kind, t, message) {
      list.closeAll(kind, t, message);
      learning.closeAll(kind, t, message);
    },
  };
}

/**
 * Profiles a WebSocket: each message (text or binary) is an arrival, read by the readers above.
 * Closing the socket ends every open answer: cleanly (code 1000) as done, else as failed.
 * @param {Hub} p
 * @param {WebSocket} ws
 * @param {SocketOptions} o
 */
export function tapSocket(p, ws, o) {
  const readers = socketReaders(p, { ...o, sentAt: () => sentAt.get(ws) });
  const onData = (/** @type {unknown} */ data, /** @type {number} */ t) => {
    const io = typeof data === 'string' && !o.extract ? socketIoEvent(data) : null;
    if (io) return readers.io(io, t, 'socket.io');
    readers.message(data, t, 'websocket');
  };
  // Blobs are read in order: each message waits for the one before it.
  let order = Promise.resolve();
  const onMessage = (/** @type {MessageEvent} */ e) => {
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
  const onClose = (/** @type {CloseEvent} */ e) => {
    try {
      const clean = e.code === 1000 && e.wasClean !== false;
      readers.closeAll(clean ? END_COMPLETE : END_FAILED, stampOf(e), `WebSocket closed (code ${e.code})`);
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
 * @param {Hub} p
 * @param {any} socket a socket.io-client Socket (its types are the app's)
 * @param {SocketOptions} o
 */
export function tapSocketIo(p, socket, o) {
  /** @type {number | undefined} */
  let sent;
  if (typeof socket.onAnyOutgoing === 'function') socket.onAnyOutgoing(() => (sent = performance.now()));
  const readers = socketReaders(p, { ...o, sentAt: () => sent });
  socket.onAny((/** @type {[string, ...unknown[]]} */ ...args) => {
    try {
      readers.io(args, performance.now(), 'socket.io');
    } catch {
      /* tokenpaint's problem */
    }
  });
  socket.on('disconnect', (/** @type {string} */ reason) => {
    try {
      const mine = reason === 'io client disconnect';
      readers.closeAll(mine ? END_COMPLETE : END_FAILED, performance.now(), `Socket.IO disconnected (${reason})`);
    } catch {
      /* tokenpaint's problem */
    }
  });
}

// The Socket.IO sessions read over HTTP long-polling, by profiler and Engine.IO session id.
/** @typedef {{ sent: number | undefined, readers: ReturnType<typeof socketReaders> }} Session */
/** @type {WeakMap<Hub, Map<string, Session>>} */
const polled = new WeakMap();

/**
 * Profiles one Engine.IO long-polling request (`?EIO=4&transport=polling&sid=…`). A GET
 * carries what the server sends: its packets, separated by U+001E, are read as a socket's
 * messages, and the answers of one session go on across its polls; a close packet ends them. A
 * POST carries what the client sends: its time is the next answer's request start.
 * @param {Hub} p
 * @param {XMLHttpRequest} xhr
 * @param {SocketOptions} o
 * @param {string | URL} url
 * @param {string} method
 */
export function tapPolling(p, xhr, o, url, method) {
  /** @type {string | null} */
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
    /** @type {Session} */
    const session = /** @type {any} */ ({ sent: undefined });
    session.readers = socketReaders(p, { ...o, sentAt: () => session.sent });
    sessions.set(sid, session);
  }
  const session = /** @type {Session} */ (sessions.get(sid));
  // A POST poll carries the client's packets (the ask): it is the answer's request.
  if (method === 'POST') return void (session.sent = performance.now());
  const readers = session.readers;
  xhr.addEventListener('load', (/** @type {ProgressEvent} */ e) => {
    try {
      const t = stampOf(e);
      for (const packet of String(xhr.responseText).split('\x1e')) {
        if (packet === '1') {
          readers.closeAll(END_COMPLETE, t, '');
          /** @type {Map<string, Session>} */ (sessions).delete(/** @type {string} */ (sid));
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
