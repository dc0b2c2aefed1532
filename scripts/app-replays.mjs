// Real chat apps' traffic, replayed through real transports (issue 47): what Open WebUI 0.12.4 and
// Gradio 6.31.0 sent their page, recorded from the installed apps by scripts/record-app.mjs
// (tests/recordings/), served again at the same paths with the same gaps:
// - Open WebUI: `POST /api/chat/completions` answers JSON `{ status, task_ids, chat_id }`, and the
//   answer follows over a real Socket.IO server at `/ws/socket.io/` as the recorded `events`
//   messages (to the socket named by `session_id`, with the asked message id);
// - Gradio: `POST /gradio_api/queue/join` answers `{ event_id }`, `GET /gradio_api/queue/data`
//   streams the recorded SSE events for that function (`fn_index`), `POST
//   /gradio_api/run/predict` answers the recorded JSON, and `GET /gradio_api/heartbeat/…` sends
//   `data: ALIVE` every 15 s as Gradio does.
// `?speed=2` (on the page's request) replays twice as fast; nothing else is changed.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server as SocketIoServer } from 'socket.io';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = {
  'open-webui': 'tests/recordings/open-webui-0.12.4.json',
  gradio: 'tests/recordings/gradio-6.31.0.json',
};
const load = (name) => JSON.parse(readFileSync(path.join(ROOT, FIXTURES[name]), 'utf8'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Socket.IO frames of the recorded answer: `[gap ms, payload]`, from the first after the ask. */
function owuiAnswer(f) {
  const ask = f.wire.find((w) => w.kind === 'fetch' && /\/api\/chat\/completions$/.test(w.url));
  const frames = f.wire.filter((w) => w.kind === 'frame' && w.t > ask.t && w.text.startsWith('42["events"'));
  return { ask, frames: frames.map((w) => [w.t - ask.t, JSON.parse(w.text.slice(2))[1]]) };
}

/** Per Gradio function: its recorded response (JSON for run/predict; SSE chunks for the queue). */
function gradioCalls(f) {
  const calls = new Map();
  for (const w of f.wire) {
    if (w.kind !== 'fetch' || w.method !== 'POST' || !w.body) continue;
    const fn = JSON.parse(w.body).fn_index;
    const queued = w.url.includes('/queue/join');
    let id = w.id;
    let joined = null;
    if (queued) {
      // The queue's answer comes on the next queue/data stream.
      joined = JSON.parse(f.wire.find((x) => x.id === w.id && x.kind === 'chunk').text).event_id;
      id = f.wire.find((x) => x.kind === 'fetch' && x.t > w.t && x.url.includes('/queue/data')).id;
    }
    const open = f.wire.find((x) => x.id === id && x.kind === 'fetch');
    const chunks = f.wire.filter((x) => x.id === id && x.kind === 'chunk');
    calls.set(`${queued ? 'queue' : 'predict'}:${fn}`, { joined, chunks: chunks.map((c) => [c.t - open.t, c.text]) });
  }
  return calls;
}

/** Adds the replays to `server` (an http.Server); returns `handle(req, res, url)`: true when it answered. */
export function attachAppReplays(server) {
  const owui = owuiAnswer(load('open-webui'));
  const gradio = gradioCalls(load('gradio'));
  const io = new SocketIoServer(server, { path: '/ws/socket.io/', serveClient: false });
  const pending = new Map(); // Gradio: session_hash → [{ key, event_id, speed }]

  async function owuiReplay(body, speed) {
    const socket = io.sockets.sockets.get(body.session_id);
    if (!socket) return;
    const start = performance.now();
    for (const [at, payload] of owui.frames) {
      const wait = at / speed - (performance.now() - start);
      if (wait > 0) await sleep(wait);
      if (!socket.connected) return;
      const m = JSON.parse(JSON.stringify(payload));
      if (m.message_id) m.message_id = body.id;
      if (m.chat_id) m.chat_id = body.chat_id || m.chat_id;
      socket.emit('events', m);
    }
  }

  async function gradioStream(res, url, req) {
    const hash = url.searchParams.get('session_hash');
    const queue = pending.get(hash) || [];
    pending.delete(hash);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    let closed = false;
    req.on('close', () => (closed = true));
    for (const job of queue) {
      const call = gradio.get(job.key);
      const start = performance.now();
      for (const [at, text] of call ? call.chunks : []) {
        const wait = at / job.speed - (performance.now() - start);
        if (wait > 0) await sleep(wait);
        if (closed) return;
        res.write(call.joined ? text.split(call.joined).join(job.event_id) : text);
      }
    }
    res.end();
  }

  return async function handle(req, res, url) {
    const p = url.pathname;
    const speed = Math.max(0.1, Number(url.searchParams.get('speed')) || 1);
    if (p === '/api/chat/completions' && req.method === 'POST') {
      const body = JSON.parse((await readAll(req)) || '{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: true, task_ids: [randomUUID()], chat_id: body.chat_id || randomUUID() }));
      owuiReplay(body, speed).catch(() => {});
      return true;
    }
    if (p === '/gradio_api/queue/join' && req.method === 'POST') {
      const body = JSON.parse((await readAll(req)) || '{}');
      const event_id = randomUUID().replace(/-/g, '');
      const list = pending.get(body.session_hash) || [];
      list.push({ key: `queue:${body.fn_index}`, event_id, speed });
      pending.set(body.session_hash, list);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ event_id }));
      return true;
    }
    if (p === '/gradio_api/queue/data') {
      await gradioStream(res, url, req);
      return true;
    }
    if (p === '/gradio_api/run/predict' && req.method === 'POST') {
      const body = JSON.parse((await readAll(req)) || '{}');
      const call = gradio.get(`predict:${body.fn_index}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(call && call.chunks.length ? call.chunks.map(([, t]) => t).join('') : '{"data":[],"is_generating":false}');
      return true;
    }
    // An app whose protocol tokenpaint cannot read (a made-up one, not recorded): each token as
    // its characters' code points, `data: {"c": [119, 111, …]}`, every 20 ms.
    if (p === '/unreadable/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      let closed = false;
      req.on('close', () => (closed = true));
      for (let i = 0; i < 30 && !closed; i++) {
        await sleep(20);
        res.write(`data: ${JSON.stringify({ c: [...`${i ? ' ' : ''}piece${i}`].map((ch) => ch.codePointAt(0)) })}\n\n`);
      }
      res.end('data: {"end":true}\n\n');
      return true;
    }
    // A stream tokenpaint can learn (made up, not recorded: each token a JSON event of its own,
    // `data: {"kind": "part", "text": " word3"}` every 20 ms) whose page shows other words after
    // the first few (tests/pages/apps/unreadable.js `sendOther`).
    if (p === '/contradicted/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      let closed = false;
      req.on('close', () => (closed = true));
      for (let i = 0; i < 30 && !closed; i++) {
        await sleep(20);
        res.write(`data: ${JSON.stringify({ kind: 'part', text: `${i ? ' ' : ''}word${i}` })}\n\n`);
      }
      res.end('data: {"kind":"end"}\n\n');
      return true;
    }
    if (p.startsWith('/gradio_api/heartbeat/')) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.write('data: ALIVE\n\n');
      const timer = setInterval(() => res.write('data: ALIVE\n\n'), 15000);
      req.on('close', () => clearInterval(timer));
      return true;
    }
    return false;
  };
}

async function readAll(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}
