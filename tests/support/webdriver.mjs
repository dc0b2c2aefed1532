// A small W3C WebDriver (classic) client for WebKitGTK's WebKitWebDriver, which drives the
// MiniBrowser Debian ships (puppeteer and playwright-core drive no system WebKit). It speaks only
// what the engine tests use: a session, navigation, scripts (sync and async), a screenshot, and
// minimizing and restoring the window.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Stops `proc`, spawned `detached` (a process group of its own), with every process it started,
 * and lets go of its pipes: a browser a driver started holds them (and so this process) open
 * otherwise.
 */
export function stopGroup(proc) {
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  for (const pipe of [proc.stdout, proc.stderr]) pipe?.destroy();
}

/** Starts `driver` on a free port and waits until it answers /status. */
export async function startDriver(driver, env = process.env) {
  const port = await freePort();
  // A process group of its own, for stopGroup.
  const proc = spawn(driver, [`--port=${port}`, '--host=127.0.0.1'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const stop = () => stopGroup(proc);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) throw new Error(`${driver} exited: ${stderr}`);
    try {
      const r = await fetch(`${base}/status`);
      if (r.ok) return { base, proc, stop, stderr: () => stderr };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  stop();
  throw new Error(`${driver} did not start: ${stderr}`);
}

// Every call has a deadline: a browser that never answers fails its test, where an unbounded
// wait would hold the whole `npm test` until CI gives up on it.
const SCRIPT_MS = 120000;
const CALL_MS = 60000;

async function call(base, method, path, body, ms = CALL_MS) {
  let r;
  try {
    r = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ms),
    });
  } catch (e) {
    throw new Error(`WebDriver ${method} ${path}: ${e.name === 'TimeoutError' ? `no answer in ${ms} ms` : e.message}`);
  }
  const json = await r.json().catch(() => ({}));
  if (!r.ok || (json.value && json.value.error)) {
    const v = json.value || {};
    throw new Error(`WebDriver ${method} ${path}: ${v.error || r.status}: ${v.message || ''}`);
  }
  return json.value;
}

/** A browsing session: one window, driven by scripts. */
export async function newSession(base, capabilities, { startMs = CALL_MS } = {}) {
  const value = await call(base, 'POST', '/session', { capabilities: { alwaysMatch: capabilities } }, startMs);
  const path = `/session/${value.sessionId}`;
  await call(base, 'POST', `${path}/timeouts`, { script: SCRIPT_MS, pageLoad: 30000 });
  const run = (kind, script, args) => call(base, 'POST', `${path}/execute/${kind}`, { script, args }, SCRIPT_MS + CALL_MS);
  return {
    capabilities: value.capabilities,
    goto: (url) => call(base, 'POST', `${path}/url`, { url }),
    /** Runs `fn(arg)` in the page and resolves with its (awaited) result, as puppeteer does. */
    async evaluate(fn, arg) {
      const script = `const done = arguments[arguments.length - 1];
        Promise.resolve().then(() => (${fn})(arguments[0])).then(
          (v) => done({ ok: v === undefined ? null : v }),
          (e) => done({ error: String(e && e.stack || e) }));`;
      const out = await run('async', script, [arg === undefined ? null : arg]);
      if (out && 'error' in out) throw new Error(`in the page: ${out.error}`);
      return out ? out.ok : out;
    },
    async waitForFunction(fn, arg, { timeout = 15000 } = {}) {
      const end = Date.now() + timeout;
      for (;;) {
        if (await run('sync', `return !!(${fn})(arguments[0]);`, [arg === undefined ? null : arg])) return;
        if (Date.now() > end) throw new Error(`waitForFunction timed out: ${fn}`);
        await sleep(50);
      }
    },
    /** A PNG of the window. */
    async screenshot() {
      return Buffer.from(await call(base, 'GET', `${path}/screenshot`), 'base64');
    },
    /** Minimizes the window (WebKit then hides the page; a second tab or window does not). */
    minimize: () => call(base, 'POST', `${path}/window/minimize`, {}),
    /** Restores a minimized window (the spec's "set window rect" restores it first). */
    restore: () => call(base, 'POST', `${path}/window/rect`, { x: 0, y: 0, width: 1280, height: 1000 }),
    close: () => call(base, 'DELETE', path).catch(() => {}),
  };
}
