// A browser that does not start must fail its tests, say why, and let `npm test` go on: a CI
// run once met a Firefox that never printed its WebDriver BiDi address, and the demo server the
// set-up had started kept the test file's process alive until CI gave up after 5,400 s.
// Here the browsers are stand-ins that print a line and then never answer; the set-ups are the
// real ones (tests/support/helpers.mjs), with their launch deadline shortened by LAUNCH_MS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HELPERS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'helpers.mjs');

/** An executable that says `line` on stderr, then waits without end. */
function silentBrowser(line) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-silent-'));
  const file = path.join(dir, 'browser');
  writeFileSync(file, `#!/bin/sh\necho "${line}" >&2\nexec sleep 600\n`);
  chmodSync(file, 0o755);
  return file;
}

/**
 * Runs `body` (the text of an async function given the helpers module) in a Node process of its
 * own, the way a test file runs, and resolves with what it printed and whether it exited by
 * itself within `ms`.
 */
function runAlone(body, env, ms) {
  const script = `const h = await import(${JSON.stringify(HELPERS)});
    try { await (${body})(h); console.log(JSON.stringify({ ok: true })); }
    catch (e) { console.log(JSON.stringify({ ok: false, message: e.message })); }`;
  const proc = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), ms);
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').pop() || '{}';
      resolve({ exited: signal === null, code, ms: Date.now() - started, result: JSON.parse(last.startsWith('{') ? last : '{}'), stderr: err });
    });
  });
}

test('a Firefox that never answers fails its set-up after two tries, says what it printed, and leaves the process free to exit', async (t) => {
  const fake = silentBrowser('stand-in firefox: never listening');
  const run = await runAlone('async (h) => { await h.setupFirefox(); }', { FIREFOX: fake, LAUNCH_MS: '1500' }, 60000);
  t.diagnostic(`exited by itself: ${run.exited} in ${run.ms} ms; ${JSON.stringify(run.result).slice(0, 400)}`);
  assert.ok(run.exited, `the process exited by itself (it was killed after ${run.ms} ms: something kept it alive)\n${run.stderr.slice(-1000)}`);
  assert.equal(run.result.ok, false, 'the set-up failed');
  assert.match(run.result.message, /did not start, twice/);
  assert.match(run.result.message, /stand-in firefox: never listening/, 'the error says what the browser printed');
});

test('a WebKit MiniBrowser that never answers fails its page within the launch deadline, and its driver and server are closed', async (t) => {
  const fake = silentBrowser('stand-in MiniBrowser: never connecting');
  const body = `async (h) => {
    const env = await h.setupWebKit();
    try { await env.page('/'); } finally { await env.close(); }
  }`;
  const run = await runAlone(body, { MINIBROWSER: fake, LAUNCH_MS: '3000' }, 60000);
  t.diagnostic(`exited by itself: ${run.exited} in ${run.ms} ms; ${JSON.stringify(run.result).slice(0, 400)}`);
  assert.ok(run.exited, `the process exited by itself (it was killed after ${run.ms} ms)\n${run.stderr.slice(-1000)}`);
  assert.equal(run.result.ok, false, 'the page failed');
  assert.match(run.result.message, /POST \/session/, 'the error names the call that got no answer');
});
