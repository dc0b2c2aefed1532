// The simulator's WebSocket endpoint (real sockets, the `ws` package): `/v1/ws` carries OpenAI
// chat.completion.chunk JSON, one message per delta, for as many answers at once as the client
// asks for. A client sends `{ "id": "a1", "tokens": 40, "token_ms": 20, "ttft_ms": 100 }`; the
// answer's chunks carry that id, then a finish chunk, a usage chunk and, with `done: 1`, a
// `[DONE]` message. Hostile knobs: `garbage: 1` (invalid JSON and binary bytes between deltas),
// `big_bytes: n` (one message of n bytes first), `close_after: n` (the server drops the socket,
// code 1011, after n deltas).
import { WebSocketServer } from 'ws';
import { Server as SocketIoServer } from 'socket.io';
import { answerTokens, handleChat } from './sim.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function chunk(id, delta, finish = null) {
  return JSON.stringify({ id, object: 'chat.completion.chunk', created: 1700000000, model: 'tokenpaint-sim', choices: [{ index: 0, delta, finish_reason: finish }] });
}

async function answer(ws, ask) {
  const id = String(ask.id || 'chatcmpl-ws');
  const n = Math.max(0, Math.min(20000, Math.floor(Number(ask.tokens) || 40)));
  const tokenMs = Math.max(0, Number(ask.token_ms ?? 20));
  const tokens = answerTokens(n, Number(ask.seed) || 1);
  const send = (m) => ws.readyState === 1 && ws.send(m);
  if (ask.big_bytes) send('x'.repeat(Math.min(64 * 1024 * 1024, Number(ask.big_bytes))));
  await sleep(Math.max(0, Number(ask.ttft_ms ?? 100)));
  send(chunk(id, { role: 'assistant', content: '' }));
  for (let i = 0; i < tokens.length && ws.readyState === 1; i++) {
    if (i > 0) await sleep(tokenMs);
    if (ask.close_after && i === Number(ask.close_after)) return ws.terminate();
    send(chunk(id, { content: tokens[i] }));
    if (ask.garbage) {
      send('{"choices": [ not json');
      send(Buffer.from([0xff, 0xfe, 0x00, 0x9c, 0x42]));
    }
  }
  send(chunk(id, {}, 'stop'));
  send(JSON.stringify({ id, object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 10, completion_tokens: tokens.length, total_tokens: 10 + tokens.length } }));
  if (ask.done) send('[DONE]');
}

/**
 * The simulator's answer for `query` (the knobs of POST /v1/chat/completions) and `body`, sent
 * as messages: each server-sent event's data is one `send(data)`. `drop()` is called when the
 * simulated server drops the connection. Returns `stop()`, for when the client goes away.
 */
function simulate(query, body, send, drop) {
  let buf = '';
  const onClose = [];
  const closed = () => onClose.splice(0).forEach((f) => f());
  const res = {
    headersSent: false,
    socket: { destroy: () => (closed(), drop()), setNoDelay() {} },
    on(event, fn) {
      if (event === 'close') onClose.push(fn);
      return res;
    },
    writeHead() {
      res.headersSent = true;
      return res;
    },
    flushHeaders() {},
    write(s) {
      buf += typeof s === 'string' ? s : Buffer.from(s).toString('utf8');
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        const lines = buf.slice(0, i).split('\n');
        buf = buf.slice(i + 2);
        const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(l[5] === ' ' ? 6 : 5));
        if (data.length) send(data.join('\n'));
      }
      return true;
    },
    end(s) {
      if (s) res.write(s);
      closed();
    },
  };
  const req = { method: 'POST', headers: {}, socket: { setNoDelay() {} } };
  const done = handleChat(req, res, new URL(`http://127.0.0.1/v1/chat/completions?${query || ''}`), body || null);
  return { stop: closed, done };
}

/** Serves `/v1/ws` on `server` (an http.Server). */
export function attachSockets(server) {
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    // Other paths are Socket.IO's (it ends upgrades it does not take).
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/v1/ws') return;
    wss.handleUpgrade(req, socket, head, (ws) => {
      const stops = [];
      ws.on('close', () => stops.forEach((s) => s.stop()));
      ws.on('message', (data) => {
        let ask = null;
        try {
          ask = JSON.parse(String(data));
        } catch {
          return;
        }
        // `{ query, body }`: the simulator's own answer for those knobs (the lab), OpenAI chunks.
        if (ask && typeof ask.query === 'string') {
          stops.push(simulate(ask.query, ask.body, (m) => ws.readyState === 1 && ws.send(m), () => ws.terminate()));
          return;
        }
        answer(ws, ask).catch(() => ws.terminate());
      });
    });
  });
  server.on('close', () => wss.close());
  return wss;
}

/**
 * Open WebUI 0.12's `events` messages for one answer, in the shape recorded from the installed
 * 0.12.4 (tests/recordings/open-webui-0.12.4.json): `{ chat_id, message_id, data: { type,
 * data } }`, where `response:completion` carries the server's first raw chunk, then a
 * `response.output_text.delta` per token; `chat:completion` the finish chunk, the usage, and last
 * `done: true` with the whole text in `output[].content[].text`.
 */
export function openWebUiEvents(id) {
  const event = (type, data) => ({ chat_id: 'chat-sim', message_id: id, data: { type, data } });
  const item = `msg_${id}`;
  return {
    first: () => event('response:completion', { id: 'chatcmpl-sim', object: 'chat.completion.chunk', created: 1700000000, model: 'tokenpaint-sim', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
    delta: (text) => event('response:completion', { type: 'response.output_text.delta', item_id: item, output_index: 0, content_index: 0, delta: text }),
    finish: () => event('chat:completion', { id: 'chatcmpl-sim', object: 'chat.completion.chunk', created: 1700000000, model: 'tokenpaint-sim', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    usage: (n) => event('chat:completion', { usage: { prompt_tokens: 10, completion_tokens: n, total_tokens: 10 + n, input_tokens: 10, output_tokens: n } }),
    done: (text, n) => event('chat:completion', { done: true, output: [{ type: 'message', id: item, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text }] }], title: 'Simulated chat', usage: { prompt_tokens: 10, completion_tokens: n, total_tokens: 10 + n } }),
  };
}

/**
 * A Socket.IO server (the real `socket.io` package, at /socket.io/) that answers as Open WebUI
 * 0.12 does (`openWebUiEvents`): an `ask` event (`{ id, tokens, token_ms, ttft_ms, seed }`) is
 * answered with `events` messages, a delta per token, then the usage and `done`.
 * `drop_after: n` disconnects the client after n tokens; `garbage: 1` adds malformed, binary and
 * unrelated events after each token; `big_bytes: n` sends one status event of n bytes first.
 */
export function attachSocketIo(server) {
  const io = new SocketIoServer(server, { serveClient: false });
  io.on('connection', (socket) => {
    socket.on('ask', async (ask) => {
      const id = String((ask && ask.id) || 'msg-sim');
      if (ask && typeof ask.query === 'string') return simulateOpenWebUi(socket, id, ask);
      const n = Math.max(0, Math.min(20000, Math.floor(Number(ask && ask.tokens) || 40)));
      const tokens = answerTokens(n, Number(ask && ask.seed) || 1);
      const ev = openWebUiEvents(id);
      const emit = (m) => socket.emit('events', m);
      if (ask.big_bytes) socket.emit('events', { chat_id: 'chat-sim', message_id: id, data: { type: 'status', data: { description: 'x'.repeat(Math.min(64 * 1024 * 1024, Number(ask.big_bytes))) } } });
      await sleep(Math.max(0, Number(ask.ttft_ms ?? 100)));
      emit(ev.first());
      let text = '';
      for (let i = 0; i < tokens.length && socket.connected; i++) {
        if (i > 0) await sleep(Math.max(0, Number(ask.token_ms ?? 20)));
        if (ask.drop_after && i === Number(ask.drop_after)) return socket.disconnect(true);
        text += tokens[i];
        emit(ev.delta(tokens[i]));
        if (ask.garbage) {
          // Events an app may get on the same socket that are no answer, or not well formed.
          socket.emit('events', 'not an object');
          socket.emit('events', { chat_id: 'chat-sim', message_id: id, data: { type: 'response:completion', data: { type: 'response.output_text.delta', delta: 42 } } });
          socket.emit('events', Buffer.from([0xff, 0xfe, 0x00, 0x9c]));
          socket.emit('other-event', { choices: [{ delta: { content: 'not this answer' } }] });
        }
      }
      emit(ev.finish());
      emit(ev.usage(tokens.length));
      emit(ev.done(text, tokens.length));
    });
  });
  return io;
}

/** The simulator's answer for `{ query, body }` as Open WebUI 0.12 sends it: deltas, then done. */
async function simulateOpenWebUi(socket, id, ask) {
  const ev = openWebUiEvents(id);
  let text = '';
  let n = 0;
  let first = true;
  const sim = simulate(
    ask.query,
    ask.body,
    (data) => {
      if (data === '[DONE]') return;
      try {
        const piece = JSON.parse(data).choices?.[0]?.delta?.content;
        if (first) socket.emit('events', ev.first());
        first = false;
        if (piece) {
          text += piece;
          n++;
          socket.emit('events', ev.delta(piece));
        }
      } catch {
        /* not a chunk */
      }
    },
    () => socket.disconnect(true),
  );
  socket.on('disconnect', sim.stop);
  await sim.done;
  if (socket.connected) {
    socket.emit('events', ev.finish());
    socket.emit('events', ev.done(text, n));
  }
}
