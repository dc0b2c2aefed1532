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
