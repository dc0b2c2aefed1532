// The README's examples are checked: every js/jsx block compiles, the integration examples fit in
// 10 lines, and every `profiler.<method>` they call exists on the real Profiler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { Profiler } from '../js/profiler.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```(js|jsx)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], code: m[2] }));

test('the README has its usage and integration examples', () => {
  assert.ok(blocks.length >= 4, `${blocks.length} blocks`);
});

test('every README example compiles', () => {
  for (const b of blocks) {
    // Top-level await and `…` placeholders in comments are fine; the code itself must parse.
    assert.doesNotThrow(() => transformSync(b.code, { loader: b.lang, format: 'esm', target: 'es2022' }), b.code);
  }
});

test('the integration examples fit in 10 lines', () => {
  for (const b of blocks) assert.ok(b.code.trim().split('\n').length <= 10, b.code);
});

test('every profiler method the README calls exists', () => {
  const p = new Profiler();
  const called = new Set([...readme.matchAll(/profiler\.(\w+)\(/g)].map((m) => m[1]));
  assert.ok(called.size >= 8, [...called].join(','));
  for (const name of called) assert.equal(typeof p[name], 'function', `profiler.${name}`);
  p.disconnect();
});

test('every file the README names exists', async () => {
  const { existsSync } = await import('node:fs');
  const named = [...readme.matchAll(/`((?:src|js|scripts|tests|bench|www)\/[\w./-]+)`/g)].map((m) => m[1]);
  assert.ok(named.length >= 20, `${named.length} paths`);
  for (const p of named) assert.ok(existsSync(path.join(root, p)), `${p} is named in the README but does not exist`);
});
