// The packed tarball, unchanged, in the setups users have: a plain page with <script
// type="module"> and an import map (no bundler), a Vite app (dev server and production build) and
// a webpack 5 build. Each installs the tarball into its own directory, streams from the demo
// server in Chromium, and must reach a finished report. The wasm is loaded by `init()` from
// `new URL('…_bg.wasm', import.meta.url)`, which both bundlers understand without configuration.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { setup } from '../support/helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
let env;
let tarball;
const work = mkdtempSync(path.join(tmpdir(), 'tokenpaint-pack-'));

// The app every consumer builds: one streamed answer into an observed element.
const APP = `import init, { Profiler } from 'tokenpaint';
await init();
const out = document.getElementById('out');
const profiler = new Profiler();
profiler.observe(out);
const done = new Promise((resolve) => profiler.onReport(resolve));
const api = new URLSearchParams(location.search).get('api');
const res = await profiler.fetch(api + '/v1/chat/completions?ttft_ms=50&token_ms=10&tokens=30', { method: 'POST', body: '{}' });
const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
let buf = '';
for (;;) {
  const { value, done: end } = await reader.read();
  if (end) break;
  buf += value;
  const lines = buf.split('\\n');
  buf = lines.pop();
  for (const line of lines) {
    if (!line.startsWith('data: {')) continue;
    const piece = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
    if (piece) out.append(piece);
  }
}
window.report = await done;
`;

// The same app through the stub (tokenpaint/lazy), which loads the profiler when it is needed.
const LAZY_APP = APP.replace(
  "import init, { Profiler } from 'tokenpaint';\nawait init();\nconst out = document.getElementById('out');\nconst profiler = new Profiler();",
  "import { start } from 'tokenpaint/lazy';\nconst out = document.getElementById('out');\nconst profiler = start({ sampleRate: 1 });",
);

function consumer(name, files) {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }));
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: dir, stdio: 'ignore' });
  return dir;
}

/** A static server for a directory (with the wasm content type). */
function serve(dir) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
  const server = createServer((req, res) => {
    const p = path.join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = existsSync(p) && !p.endsWith('/') ? p : path.join(p, 'index.html');
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

async function runIn(url) {
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // The console's errors (a missing favicon among them) only explain a page that never reports.
  const logged = [];
  page.on('console', (m) => m.type() === 'error' && logged.push(m.text()));
  await page.goto(`${url}?api=${encodeURIComponent(env.url)}`);
  await page.waitForFunction(() => window.report, null, { timeout: 20000 }).catch((e) => {
    throw new Error(`${e.message}; the page's errors: ${[...errors, ...logged].join(' | ') || 'none'}`);
  });
  const r = await page.evaluate(() => window.report);
  await page.close();
  assert.deepEqual(errors, []);
  assert.equal(r.status, 'ok');
  assert.equal(r.deltas, 30);
  assert.equal(r.matchedPct, 100);
  assert.ok(r.lag.count === 30, 'painted');
  return r;
}

before(async () => {
  env = await setup();
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], { cwd: root, encoding: 'utf8' });
  tarball = path.join(work, out.trim().split('\n').pop());
});
after(() => env.close());

test('the tarball holds the shell, the glue, the wasm and the types, and nothing else', () => {
  const list = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
  for (const f of ['package/js/index.js', 'package/js/index.d.ts', 'package/pkg/tokenpaint_core.js', 'package/pkg/tokenpaint_core_bg.wasm', 'package/README.md', 'package/package.json']) {
    assert.ok(list.includes(f), f);
  }
  assert.ok(!list.some((f) => /src\/|tests\/|www\/|scripts\//.test(f)), list.join('\n'));
});

test('a plain page with <script type="module"> and an import map, no bundler', async () => {
  const dir = consumer('plain', {
    'index.html': `<!doctype html><meta charset="utf-8"><script type="importmap">{"imports":{"tokenpaint":"./node_modules/tokenpaint/js/index.js"}}</script><div id="out"></div><script type="module" src="./src/main.js"></script>`,
    'src/main.js': APP,
  });
  const { server, url } = await serve(dir);
  try {
    await runIn(`${url}/index.html`);
  } finally {
    server.close();
  }
});

/** A Vite app of `main`: installed, built for production, served and run to a report. */
async function viteBuild(name, main) {
  const dir = consumer(name, {
    'index.html': `<!doctype html><meta charset="utf-8"><div id="out"></div><script type="module" src="/src/main.js"></script>`,
    'src/main.js': main,
    'vite.config.js': `export default { build: { target: 'es2022' }, logLevel: 'error' };`,
  });
  execFileSync(bin('vite'), ['build'], { cwd: dir, stdio: 'pipe' });
  const { server, url } = await serve(path.join(dir, 'dist'));
  try {
    return { dir, report: await runIn(`${url}/index.html`) };
  } finally {
    server.close();
  }
}

test('a Vite app: production build, then the dev server', async () => {
  const { dir } = await viteBuild('vite', APP);
  const dev = spawn(bin('vite'), ['--port', '0', '--host', '127.0.0.1', '--logLevel', 'info'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const devUrl = await new Promise((resolve, reject) => {
      let log = '';
      const timer = setTimeout(() => reject(new Error(log)), 20000);
      dev.stdout.on('data', (d) => {
        log += d;
        const m = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(log.replace(/\x1b\[[0-9;]*m/g, ''));
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    await runIn(`${devUrl}/`);
  } finally {
    dev.kill();
  }
});

test('a Vite production build of tokenpaint/lazy: the stub loads the profiler and its wasm at the first stream', async () => {
  assert.ok(LAZY_APP.includes("from 'tokenpaint/lazy'"));
  const { report } = await viteBuild('vite-lazy', LAZY_APP);
  assert.equal(report.sampleRate, 1);
});

test('the published types pass tsc --strict in a consumer', () => {
  const dir = consumer('typescript', {
    'consumer.ts': readFileSync(path.join(root, 'tests', 'types', 'consumer.ts'), 'utf8'),
    'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], skipLibCheck: false }, files: ['consumer.ts'] }),
  });
  const out = (() => {
    try {
      return execFileSync(bin('tsc'), ['--project', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    } catch (e) {
      return String(e.stdout) + String(e.stderr);
    }
  })();
  assert.equal(out.trim(), '', out);
});

test('a webpack 5 build', async () => {
  const dir = consumer('webpack', {
    'index.html': `<!doctype html><meta charset="utf-8"><div id="out"></div><script type="module" src="./main.js"></script>`,
    'src/main.js': APP,
    'webpack.config.js': `export default { mode: 'production', entry: './src/main.js', experiments: { outputModule: true, topLevelAwait: true }, output: { path: new URL('./dist', import.meta.url).pathname, filename: 'main.js', module: true }, performance: { hints: false } };`,
  });
  execFileSync(bin('webpack'), ['--config', 'webpack.config.js'], { cwd: dir, stdio: 'pipe' });
  writeFileSync(path.join(dir, 'dist', 'index.html'), readFileSync(path.join(dir, 'index.html')));
  const { server, url } = await serve(path.join(dir, 'dist'));
  try {
    await runIn(`${url}/index.html`);
  } finally {
    server.close();
  }
});
