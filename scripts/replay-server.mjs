// A real chat app, replayed from its recording (scripts/record-app.mjs, tests/recordings/) through
// real transports: this server answers the page's requests and sockets at the app's own paths with
// what the app sent, and tests/pages/replay.js (the page it serves) plays the app's page: the
// requests and frames it sent, and the changes its DOM went through, from the page as it was when
// the question was asked. Nothing is written from memory: every byte and every change is the
// recorded app's.
//
// Times keep their causes, not the clock: each thing the server sends waits for what preceded it
// in the recording (the page's last request or frame before it, the server's previous message on
// the same connection), then the recorded gap; the page does the same for what it sends and for
// its DOM changes. A loaded machine slows the replay down as it would slow the app, and never
// reorders it.
//
//   const r = await startReplay('tests/recordings/chainlit-2.12.0.json'); ... r.url ... r.close()
import http from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PAGE = path.join(ROOT, 'tests/pages/replay.js');
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

// What the page does (C) and what the server sends (S), as the recording calls them.
const CLIENT = new Set(['fetch', 'xhr', 'websocket', 'eventsource', 'sent', 'closed-by-page']);
const SERVER = new Set(['response', 'chunk', 'end', 'error', 'frame', 'close', 'xhr-progress', 'xhr-load', 'event']);

/**
 * The recording's entries in time order, each with `i` (its place), `side` ('C' or 'S'), `conn`
 * (the connection's opening entry) and `pred` (the place of the page's last entry before it).
 * @param {any} rec
 */
export function plan(rec) {
  // What went over the network: a page's reads of its own blob: and data: URLs did not.
  const local = new Set(rec.wire.filter((x) => x.url && !/^(https?|wss?):/.test(x.url)).map((x) => x.id));
  const entries = rec.wire
    .filter((w) => !local.has(w.id))
    .map((w, k) => ({ ...w, k }))
    .filter((w) => CLIENT.has(w.kind) || SERVER.has(w.kind))
    .sort((a, b) => a.t - b.t || a.k - b.k);
  const opens = new Map();
  let lastC = -1;
  for (const [i, e] of entries.entries()) {
    e.i = i;
    e.side = CLIENT.has(e.kind) ? 'C' : 'S';
    if (['fetch', 'xhr', 'websocket', 'eventsource'].includes(e.kind)) opens.set(e.id, e);
    e.conn = opens.get(e.id) || null;
    e.pred = lastC;
    if (e.side === 'C') lastC = i;
  }
  return entries;
}

/** The page a replay serves: the recording, and the script that plays it. */
function pageHtml(rec) {
  // `<` escaped: the recording holds HTML and scripts as strings.
  const json = JSON.stringify(rec).replace(/</g, '\\u003c');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${String(rec.dom?.snapshot?.title || rec.app).replace(/</g, '&lt;')}</title></head><body></body><script type="application/json" id="tp-recording">${json}</script><script type="module" src="/__replay/page.js"></script></html>`;
}

/**
 * Serves the recording `file` on a port of its own. Returns `{ url, close, seen }`.
 * @param {string} file
 */
export async function startReplay(file) {
  const rec = JSON.parse(readFileSync(path.resolve(ROOT, file), 'utf8'));
  const entries = plan(rec);
  const html = pageHtml(rec);
  // When the server saw each of the page's entries (by place), and when it sent each of its own.
  const at = new Map();
  const waiters = new Map();
  const saw = (i) => {
    if (at.has(i)) return;
    at.set(i, performance.now());
    for (const w of waiters.get(i) || []) w();
    waiters.delete(i);
  };
  const when = (i) => (i < 0 || at.has(i) ? Promise.resolve() : new Promise((r) => (waiters.get(i) || waiters.set(i, []).get(i)).push(r)));
  // An entry of the server's: after its connection's opening and its previous entry, and after
  // the page's last entry before it where that told the server something (a frame, a request
  // with a body: a question); each by its recorded gap. A plain GET of another connection is no
  // cause: the browser may hold it back (six connections per host) until a response it waits for
  // has come.
  const tells = (c) => c.kind === 'sent' || c.kind === 'websocket' || ((c.kind === 'fetch' || c.kind === 'xhr') && c.method && !/^(GET|HEAD)$/i.test(c.method));
  async function due(e, prev) {
    const causes = [e.conn, prev];
    const c = e.pred >= 0 ? entries[e.pred] : null;
    if (c && (c === e.conn || tells(c))) causes.push(c);
    let target = -Infinity;
    for (const x of causes) {
      if (!x) continue;
      await when(x.i);
      target = Math.max(target, at.get(x.i) + (e.t - x.t));
    }
    await sleep(target - performance.now());
  }
  // The page's requests and sockets, matched to the recording by method and path, in order.
  const byKey = new Map();
  for (const e of entries) {
    if (!['fetch', 'xhr', 'websocket', 'eventsource'].includes(e.kind)) continue;
    const u = new URL(e.url);
    const key = `${e.kind === 'websocket' ? 'WS' : e.method || 'GET'} ${u.pathname}`;
    (byKey.get(key) || byKey.set(key, []).get(key)).push(e);
  }
  const take = (key) => {
    const list = byKey.get(key);
    return list && list.length ? list.shift() : null;
  };
  const own = (open) => entries.filter((e) => e.conn === open && e.side === 'S');

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/__replay/page.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(readFileSync(PAGE));
    }
    if (url.pathname === '/' && req.method === 'GET' && !url.search) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(html);
    }
    const open = take(`${req.method} ${url.pathname}`);
    if (process.env.REPLAY_DEBUG) console.error('replay:', req.method, req.url, open ? `recorded ${open.kind} ${open.id}` : 'not recorded');
    if (!open) {
      res.writeHead(404).end();
      return;
    }
    saw(open.i);
    req.resume();
    let closed = false;
    res.on('close', () => (closed = true));
    const mine = own(open);
    const head = mine.find((e) => e.kind === 'response' || e.kind === 'xhr-load');
    let prev = null;
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      // No MIME sniffing: Chromium holds a text/plain response back until 512 bytes or its end to
      // sniff it, and the replay's order would wait on that forever.
      res.writeHead(head ? head.status : 200, { 'content-type': (head && head.type) || 'text/plain', 'cache-control': 'no-store', 'x-accel-buffering': 'no', 'x-content-type-options': 'nosniff' });
      // The headers go now: the page may wait for them before it does what the body waits for.
      res.flushHeaders();
    };
    for (const e of mine) {
      await due(e, prev);
      if (process.env.REPLAY_DEBUG) console.error('replay: sends', e.kind, e.id, closed ? '(closed)' : '');
      if (closed) return;
      prev = e;
      at.set(e.i, performance.now());
      if (e.kind === 'response') start();
      else if (e.kind === 'chunk' || e.kind === 'xhr-progress') {
        start();
        res.write(e.bytes ? Buffer.from(e.bytes, 'base64') : e.text);
      } else if (e.kind === 'xhr-load') {
        start();
        // The whole response, where no progress was recorded.
        if (!mine.some((x) => x.kind === 'xhr-progress') && typeof e.text === 'string') res.write(e.text);
        if (!mine.some((x) => x.kind === 'xhr-progress') && e.bytes) res.write(Buffer.from(e.bytes, 'base64'));
        return res.end();
      } else if (e.kind === 'end' || e.kind === 'error') return res.end();
    }
    start();
    // A response the page never saw end (a stream left open, then aborted): kept open.
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const open = take(`WS ${url.pathname}`);
    if (!open) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => {
      saw(open.i);
      const sent = entries.filter((e) => e.conn === open && e.kind === 'sent');
      let n = 0;
      ws.on('message', () => {
        const e = sent[n++];
        if (e) saw(e.i);
      });
      ws.on('close', () => {
        for (const e of entries) if (e.conn === open && e.kind === 'closed-by-page') saw(e.i);
      });
      (async () => {
        let prev = null;
        for (const e of own(open)) {
          await due(e, prev);
          if (ws.readyState !== ws.OPEN) return;
          prev = e;
          at.set(e.i, performance.now());
          if (e.kind === 'frame') ws.send(e.bytes ? Buffer.from(e.bytes, 'base64') : e.text, { binary: !!e.bytes });
          else if (e.kind === 'close') return ws.close(e.code === 1005 || !e.code ? 1000 : e.code);
        }
      })().catch(() => {});
    });
  });

  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    rec,
    close: () =>
      new Promise((r) => {
        for (const c of wss.clients) c.terminate();
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
