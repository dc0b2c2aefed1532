// The extension's package (issue 34): it asks only for what it needs, its zip is a valid archive
// of the unpacked folder, and its reading of a page's Content-Security-Policy (whether
// WebAssembly may be compiled there) follows the directives' fallbacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { forbidsWasm } from '../../extension/csp.js';
import { zip } from '../../scripts/build-extension.mjs';

test("the manifest asks for no host up front: a site's permission is asked when it is turned on", () => {
  const m = JSON.parse(readFileSync(new URL('../../extension/manifest.json', import.meta.url), 'utf8'));
  assert.equal(m.manifest_version, 3);
  assert.equal(m.host_permissions, undefined);
  assert.deepEqual(m.optional_host_permissions, ['http://*/*', 'https://*/*']);
  assert.deepEqual([...m.permissions].sort(), ['scripting', 'storage', 'webRequest']);
  assert.equal(m.content_scripts, undefined, 'nothing runs on a site until it is turned on');
});

test('a policy forbids WebAssembly unless script-src (or default-src without it) allows wasm-unsafe-eval or unsafe-eval', () => {
  const cases = [
    ["default-src 'self'", true],
    ["default-src 'self'; script-src 'self' 'wasm-unsafe-eval'", false],
    ["script-src 'self' 'unsafe-eval'", false],
    ["script-src 'self'; default-src 'wasm-unsafe-eval'", true],
    ["default-src 'self' 'wasm-unsafe-eval'", false],
    ["img-src 'self'; style-src 'self'", false],
    ["SCRIPT-SRC 'self' 'WASM-UNSAFE-EVAL'", false],
    ['', false],
    ["script-src 'self'; script-src 'wasm-unsafe-eval'", true], // the first of a directive counts
    ["frame-ancestors 'none'; script-src 'nonce-abc' 'strict-dynamic'", true],
  ];
  for (const [policy, forbids] of cases) assert.equal(forbidsWasm(policy) !== null, forbids, policy);
  assert.match(forbidsWasm("default-src 'self'"), /\(default-src\) does not allow WebAssembly/);
});

test('the zip holds every file of the folder, byte for byte', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tp-zip-'));
  try {
    const files = { 'a.txt': 'hello\n'.repeat(100), 'b.json': '{"x":1}', 'c.bin': Buffer.from([0, 1, 2, 255]) };
    for (const [f, v] of Object.entries(files)) writeFileSync(path.join(dir, f), v);
    const file = path.join(tmpdir(), `tp-${process.pid}.zip`);
    writeFileSync(file, zip(dir));
    const out = mkdtempSync(path.join(tmpdir(), 'tp-unzip-'));
    // Python's zipfile: a reader that is not ours (and checks each entry's CRC).
    execFileSync('python3', ['-c', 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; z.extractall(sys.argv[2])', file, out]);
    for (const [f, v] of Object.entries(files)) assert.deepEqual(readFileSync(path.join(out, f)), Buffer.from(v), f);
    rmSync(out, { recursive: true, force: true });
    rmSync(file, { force: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
