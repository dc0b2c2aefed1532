// The demo server: serves the demo page and the library, and simulates an OpenAI-compatible
// streaming endpoint (POST /v1/chat/completions). Binds 127.0.0.1 only.
//
//   node scripts/demo-server.mjs            # PORT=8787 by default
//   import { startServer } from './demo-server.mjs'; const s = await startServer({ port: 0 });

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { handleChat } from './sim.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Only these folders are served.
const PUBLIC = ['www', 'js', 'pkg', 'tests/pages'];
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ts': 'text/plain; charset=utf-8',
};

async function readBody(req, limit = 1 << 20) {
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(c);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function serveStatic(res, pathname) {
  const rel = decodeURIComponent(pathname === '/' ? '/www/index.html' : pathname).replace(/^\/+/, '');
  const file = path.resolve(ROOT, rel);
  const allowed = PUBLIC.some((dir) => file.startsWith(path.join(ROOT, dir) + path.sep));
  if (!allowed) return notFound(res);
  try {
    const st = await stat(file);
    if (!st.isFile()) return notFound(res);
    const data = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(data);
  } catch {
    notFound(res);
  }
}

function notFound(res) {
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'content-type, authorization',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
};

// Replays a stream of the fixture corpus (tests/fixtures/<format>/<file>) with its content
// type and headers, in uneven chunks (`chunk` bytes at most, `delay_ms` apart): every format
// tokenpaint reads, over a real socket.
const FIXTURE_TYPES = {
  '.sse': 'text/event-stream',
  '.ndjson': 'application/x-ndjson',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json',
};

async function replayFixture(res, url) {
  const m = /^\/fixture\/([a-z0-9-]+)\/([A-Za-z0-9._-]+)$/.exec(url.pathname);
  const type = m && FIXTURE_TYPES[path.extname(m[2])];
  if (!type) return notFound(res);
  const dir = path.join(ROOT, 'tests', 'fixtures', m[1]);
  let body;
  try {
    body = await readFile(path.join(dir, m[2]));
  } catch {
    return notFound(res);
  }
  const headers = { 'content-type': type, 'cache-control': 'no-cache' };
  try {
    for (const line of (await readFile(path.join(dir, 'headers'), 'utf8')).split('\n')) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
  } catch {
    /* no extra headers */
  }
  const maxChunk = Math.max(1, Number(url.searchParams.get('chunk')) || 64);
  const delay = Math.max(0, Number(url.searchParams.get('delay_ms')) || 5);
  res.writeHead(200, headers);
  let at = 0;
  let seed = body.length;
  while (at < body.length) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const n = 1 + (seed % maxChunk);
    res.write(body.subarray(at, at + n));
    at += n;
    if (delay) await new Promise((r) => setTimeout(r, delay));
  }
  res.end();
}

export function createDemoServer() {
  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS);
        return res.end();
      }
      if (url.pathname === '/v1/chat/completions') {
        for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
        const body = req.method === 'POST' ? await readBody(req) : null;
        return await handleChat(req, res, url, body);
      }
      if (url.pathname.startsWith('/fixture/')) return await replayFixture(res, url);
      if (req.method !== 'GET' && req.method !== 'HEAD') return notFound(res);
      return await serveStatic(res, url.pathname);
    } catch (e) {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e && e.message));
      } else {
        res.destroy();
      }
    }
  });
}

/** Starts the server on 127.0.0.1; `port: 0` picks a free one. Resolves to { server, url }. */
export function startServer({ port = 8787 } = {}) {
  const server = createDemoServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: p } = server.address();
      resolve({ server, url: `http://127.0.0.1:${p}` });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT || 8787);
  const { url } = await startServer({ port });
  console.log(`tokenpaint demo: ${url}/  (simulated OpenAI-compatible server at ${url}/v1/chat/completions)`);
}
