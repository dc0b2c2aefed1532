// The simulator's WebSocket endpoint (real sockets, the `ws` package): `/v1/ws` carries OpenAI
// chat.completion.chunk JSON, one message per delta, for as many answers at once as the client
// asks for. A client sends `{ "id": "a1", "tokens": 40, "token_ms": 20, "ttft_ms": 100 }`; the
// answer's chunks carry that id, then a finish chunk, a usage chunk and, with `done: 1`, a
// `[DONE]` message. Hostile knobs: `garbage: 1` (invalid JSON and binary bytes between deltas),
// `big_bytes: n` (one message of n bytes first), `close_after: n` (the server drops the socket,
// code 1011, after n deltas).
import { WebSocketServer } from 'ws';
import { answerTokens } from './sim.mjs';

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

/** Serves `/v1/ws` on `server` (an http.Server). */
export function attachSockets(server) {
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (new URL(req.url, 'http://127.0.0.1').pathname !== '/v1/ws') return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data) => {
        let ask = null;
        try {
          ask = JSON.parse(String(data));
        } catch {
          return;
        }
        answer(ws, ask).catch(() => ws.terminate());
      });
    });
  });
  server.on('close', () => wss.close());
  return wss;
}
