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
import { attachAppReplays } from './app-replays.mjs';
import { attachSockets, attachSocketIo } from './sockets.mjs';
import { startNginx } from './nginx.mjs';
import { backgroundLoad, MAX_STREAMS } from '../js/load.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Only these folders are served.
const PUBLIC = ['www', 'js', 'pkg', 'examples/leptos-chat/dist', 'examples/dioxus-chat/dist', 'examples/yew-chat/dist', 'examples/playwright/app', 'tests/pages', 'bench/pages', 'node_modules/marked/lib', 'node_modules/katex/dist', 'node_modules/eventsource-parser/dist', 'node_modules/sse.js/lib', 'node_modules/socket.io-client/dist'];
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

// The demo page renders markdown with the real marked, from node_modules.
const VENDOR = {
  '/vendor/marked.esm.js': 'node_modules/marked/lib/marked.esm.js',
  '/vendor/katex.mjs': 'node_modules/katex/dist/katex.mjs',
  '/vendor/sse.js': 'node_modules/sse.js/lib/sse.js',
  '/vendor/socket.io.esm.min.js': 'node_modules/socket.io-client/dist/socket.io.esm.min.js',
};

// The lab's syntax highlighter (www/highlighter.js, highlight.js from node_modules), bundled
// once into a script of its own, so that the browser names it in long-animation-frame entries.
let highlighter = null;
function bundleHighlighter() {
  highlighter ??= import('esbuild')
    .then(({ build }) => build({ entryPoints: [path.join(ROOT, 'www/highlighter.js')], bundle: true, format: 'iife', target: 'es2022', write: false, logLevel: 'silent' }))
    .then((r) => r.outputFiles[0].contents)
    .catch(() => null);
  return highlighter;
}

async function serveStatic(res, pathname, query = new URLSearchParams()) {
  if (pathname === '/vendor/highlighter.js') {
    const js = await bundleHighlighter();
    if (!js) return notFound(res);
    res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
    return res.end(js);
  }
  if (VENDOR[pathname]) pathname = '/' + VENDOR[pathname];
  const rel = decodeURIComponent(pathname === '/' ? '/www/index.html' : pathname).replace(/^\/+/, '');
  const file = path.resolve(ROOT, rel);
  const allowed = PUBLIC.some((dir) => file.startsWith(path.join(ROOT, dir) + path.sep));
  if (!allowed) return notFound(res);
  try {
    const st = await stat(file);
    if (!st.isFile()) return notFound(res);
    const data = await readFile(file);
    const headers = {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'cache-control': 'no-store',
    };
    // The strict-CSP test page: no inline script, no eval, wasm allowed, Trusted Types required,
    // violations reported to /csp-report.
    if (/\/tests\/pages\/csp\.html$/.test(file)) {
      headers['content-security-policy'] = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; require-trusted-types-for 'script'; trusted-types 'none'; report-uri /csp-report";
    }
    // The bare pages (no tokenpaint in them) under a strict CSP, for the extension: `?csp=strict`
    // forbids WebAssembly (no 'wasm-unsafe-eval'), `?csp=wasm` allows it; both require Trusted
    // Types and report violations to /csp-report.
    const policy = { strict: "default-src 'self'; script-src 'self'", wasm: "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'" }[query.get('csp')];
    if (policy && file.includes(`${path.sep}tests${path.sep}pages${path.sep}bare${path.sep}`)) {
      headers['content-security-policy'] = `${policy}; connect-src 'self' ws:; require-trusted-types-for 'script'; trusted-types 'none'; report-uri /csp-report`;
    }
    // The arrival clock's service worker may control the whole origin (a site copies it to its
    // root, or sends this header).
    if (file.endsWith(`${path.sep}js${path.sep}arrival-sw.js`)) headers['service-worker-allowed'] = '/';
    // Benchmark pages are cross-origin isolated, for 5 µs timers (performance.now()).
    if (file.includes(`${path.sep}bench${path.sep}pages${path.sep}`)) {
      headers['cross-origin-opener-policy'] = 'same-origin';
      headers['cross-origin-embedder-policy'] = 'require-corp';
    }
    res.writeHead(200, headers);
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
  'access-control-allow-headers': 'content-type, authorization, x-target-url, traceparent, tracestate',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  // Server-Timing, and the headers that say where a buffering hop is (a cross-origin page sees
  // them only when exposed): the lab's nginx route is on another port.
  'access-control-expose-headers': 'server-timing, server, via, content-encoding',
};

// "Your own server" when the browser cannot reach it directly (CORS): the request is forwarded
// to the URL in `x-target-url`, with its body, content type and Authorization, and the response
// streamed back as it comes. The API key passes through memory only: it is never stored or
// logged (this server logs nothing about requests at all).
async function proxy(req, res) {
  const target = req.headers['x-target-url'];
  let url;
  try {
    url = new URL(String(target));
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    res.writeHead(400, { 'content-type': 'application/json', ...CORS });
    return res.end(JSON.stringify({ error: { message: 'x-target-url must be an http(s) URL', type: 'proxy' } }));
  }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = { 'content-type': req.headers['content-type'] || 'application/json' };
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  const ctrl = new AbortController();
  res.on('close', () => ctrl.abort());
  let upstream;
  try {
    upstream = await fetch(url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined, signal: ctrl.signal });
  } catch (e) {
    res.writeHead(502, { 'content-type': 'application/json', ...CORS });
    return res.end(JSON.stringify({ error: { message: `cannot reach ${url.origin}: ${e.message}`, type: 'proxy' } }));
  }
  const out = { ...CORS, 'content-type': upstream.headers.get('content-type') || 'application/octet-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
  const st = upstream.headers.get('server-timing');
  if (st) out['server-timing'] = st;
  res.writeHead(upstream.status, out);
  res.flushHeaders();
  try {
    for await (const chunk of upstream.body) res.write(chunk);
  } catch {
    /* the client or the upstream went away */
  }
  res.end();
}

// The lab's sweep: background streams made here, off the page, as a load generator makes them
// (js/load.js). POST /load/start { url, init, concurrency, cap } (a relative url is this
// server's own; an absolute one is the user's server) → { id, streams }; POST /load/stop { id }
// → the stats; GET /load/running → what runs. An API key in `init` stays in memory, like the
// proxy's.
const loads = new Map();
let loadIds = 0;
async function load(req, res, url) {
  const send = (status, o) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...CORS });
    res.end(JSON.stringify(o));
  };
  const ask = await readBody(req).catch(() => null);
  if (!ask || typeof ask !== 'object') return send(400, { error: 'a JSON body' });
  if (url.pathname === '/load/stop') {
    const l = loads.get(ask.id);
    if (!l) return send(404, { error: 'no such load' });
    loads.delete(ask.id);
    return send(200, await l.stop());
  }
  if (url.pathname !== '/load/start') return notFound(res);
  let target;
  try {
    const own = `http://${req.socket.localAddress}:${req.socket.localPort}`;
    target = new URL(String(ask.url), own);
  } catch {
    target = null;
  }
  if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:')) return send(400, { error: 'url must be an http(s) URL' });
  const i = ask.init || {};
  const l = backgroundLoad({ url: target, init: { method: i.method || 'POST', headers: i.headers || {}, body: i.body }, concurrency: Number(ask.concurrency) || 0, cap: Math.min(MAX_STREAMS, Number(ask.cap) || 16) });
  const id = ++loadIds;
  loads.set(id, l);
  return send(200, { id, streams: l.stats().streams });
}

// The lab's slow device: the scenario run in a headless Chromium under a CPU throttle
// (scripts/slow-device.mjs), only for this server's own lab.
async function slow(req, res) {
  const send = (status, o) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(o));
  };
  const ask = await readBody(req).catch(() => null);
  const rate = Number(ask && ask.rate);
  if (!ask || typeof ask.scenario !== 'string' || !/^[a-z0-9-]+$/i.test(ask.scenario) || !(rate >= 1 && rate <= 20)) return send(400, { error: 'a JSON body: { scenario, transport, rate (1 to 20) }' });
  try {
    const { slowRun } = await import('./slow-device.mjs');
    const origin = `http://${req.socket.localAddress}:${req.socket.localPort}`;
    const report = await slowRun({ origin, scenario: ask.scenario, transport: String(ask.transport || 'fetch'), rate });
    return send(200, { report, rate });
  } catch (e) {
    return send(e.status || 500, { error: String(e.message || e).split('\n')[0] });
  }
}

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

const cspReports = [];

export function createDemoServer(lab = {}) {
  return createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://127.0.0.1');
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS);
        return res.end();
      }
      if (url.pathname === '/lab/config') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        return res.end(JSON.stringify({ nginx: lab.nginx || null }));
      }
      if (url.pathname === '/lab/slow' && req.method === 'POST') return await slow(req, res);
      if (url.pathname === '/proxy' && req.method === 'POST') return await proxy(req, res);
      if (url.pathname.startsWith('/load/') && req.method === 'POST') return await load(req, res, url);
      if (url.pathname === '/load/running') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        return res.end(JSON.stringify({ loads: loads.size, streams: [...loads.values()].reduce((a, l) => a + l.stats().streams, 0) }));
      }
      if (url.pathname === '/csp-report') {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        cspReports.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204);
        return res.end();
      }
      if (url.pathname === '/csp-reports') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(cspReports));
      }
      if (url.pathname === '/__otel' && lab.otel) {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        return res.end(JSON.stringify(lab.otel.dump()));
      }
      if (url.pathname === '/v1/chat/completions' || url.pathname === '/chat/completions') {
        for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
        if (lab.otel) lab.otel.start(req, res, url);
        const body = req.method === 'POST' ? await readBody(req) : null;
        return await handleChat(req, res, url, body);
      }
      if (url.pathname.startsWith('/fixture/')) return await replayFixture(res, url);
      // Real chat apps' recorded traffic (scripts/app-replays.mjs), at the apps' own paths.
      if (lab.apps && (await lab.apps(req, res, url))) return;
      if (req.method !== 'GET' && req.method !== 'HEAD') return notFound(res);
      // No icon, and no failed request for one in a page's console.
      if (url.pathname === '/favicon.ico') return res.writeHead(204, { 'cache-control': 'max-age=86400' }).end();
      return await serveStatic(res, url.pathname, url.searchParams);
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

/**
 * Starts the server on 127.0.0.1; `port: 0` picks a free one. With `nginx: true`, also a real
 * nginx in front of it when installed (for the proxy-buffering scenario). With `otel: true`, a
 * SERVER span per chat request, joined to the trace context it carried (GET /__otel). Resolves to
 * { server, url, nginx } (nginx: { url, stop } or null).
 */
export async function startServer({ port = 8787, nginx = false, otel = false } = {}) {
  const lab = {};
  // With `otel`: the server's own spans (OpenTelemetry JS SDK for Node), at GET /__otel.
  if (otel) lab.otel = (await import('./otel-server.mjs')).serverTracing();
  const server = createDemoServer(lab);
  attachSockets(server);
  attachSocketIo(server);
  lab.apps = attachAppReplays(server);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: p } = server.address();
  const ng = nginx ? await startNginx(p) : null;
  lab.nginx = ng && ng.url;
  if (ng) server.on('close', () => ng.stop());
  return { server, url: `http://127.0.0.1:${p}`, nginx: ng };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT || 8787);
  // NO_NGINX=1: without the proxy scenario's nginx (the Playwright example's backend).
  const { url, nginx } = await startServer({ port, nginx: !process.env.NO_NGINX });
  console.log(`tokenpaint demo: ${url}/  (simulated OpenAI-compatible server at ${url}/v1/chat/completions)`);
  console.log(nginx ? `nginx in front of it: ${nginx.url}/buffered/ and ${nginx.url}/unbuffered/` : 'nginx is not installed: the proxy-buffering scenario is unavailable');
  const stop = () => {
    if (nginx) nginx.stop().finally(() => process.exit(0));
    else process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
