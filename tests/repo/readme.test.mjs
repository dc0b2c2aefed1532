// The README and the docs it links are checked: every js/jsx block compiles, the integration
// examples fit in 10 lines, every `profiler.<method>` they call exists on the real Profiler, every
// file they name exists, every link resolves (to a file, and to a heading of it), and every page
// of docs/ is linked from the README.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { Profiler } from '../../js/profiler.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (p) => readFileSync(path.join(root, p), 'utf8');
const readme = read('README.md');
// Every page of the user documentation: the README, docs/, the lab's guide and the costs.
const pages = ['README.md', ...readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`), 'www/README.md', 'BENCHMARKS.md'];
const text = Object.fromEntries(pages.map((p) => [p, read(p)]));
const blocks = pages.flatMap((p) => [...text[p].matchAll(/```(js|jsx)\n([\s\S]*?)```/g)].map((m) => ({ page: p, lang: m[1], code: m[2] })));

test('the README stays short: at most 300 lines', () => {
  const lines = readme.split('\n').length;
  assert.ok(lines <= 300, `${lines} lines`);
});

test('the README and the docs have their usage and integration examples', () => {
  assert.ok(blocks.filter((b) => b.page === 'README.md').length >= 2, 'the README shows its use');
  assert.ok(blocks.length >= 12, `${blocks.length} blocks`);
});

test('every example compiles', () => {
  for (const b of blocks) {
    // Top-level await and `…` placeholders in comments are fine; the code itself must parse.
    assert.doesNotThrow(() => transformSync(b.code, { loader: b.lang, format: 'esm', target: 'es2022' }), `${b.page}: ${b.code}`);
  }
});

test('the integration examples fit in 10 lines', () => {
  for (const b of blocks) assert.ok(b.code.trim().split('\n').length <= 10, `${b.page}: ${b.code}`);
});

test('every profiler method the README and the docs call exists', () => {
  const p = new Profiler();
  const called = new Set(pages.flatMap((page) => [...text[page].matchAll(/profiler\.(\w+)\(/g)].map((m) => m[1])));
  assert.ok(called.size >= 8, [...called].join(','));
  for (const name of called) assert.equal(typeof p[name], 'function', `profiler.${name}`);
  p.disconnect();
});

test('every file the README and the docs name exists', () => {
  let count = 0;
  for (const page of pages) {
    for (const m of text[page].matchAll(/`((?:src|js|scripts|tests|bench|www|docs|crates|examples|fuzz)\/[\w./-]+)`/g)) {
      count++;
      assert.ok(existsSync(path.join(root, m[1])), `${m[1]} is named in ${page} but does not exist`);
    }
  }
  assert.ok(count >= 20, `${count} paths`);
});

// GitHub's anchors: the heading in lower case, spaces as hyphens, punctuation dropped.
const anchor = (heading) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');
const anchors = (md) => new Set([...md.matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1])));

test('every link of the README and the docs resolves, to the file and to its heading', () => {
  let count = 0;
  for (const page of pages) {
    for (const m of text[page].matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1];
      if (/^[a-z]+:/.test(link)) continue; // an outside address
      const [file, hash] = link.split('#');
      const target = file ? path.normalize(path.join(path.dirname(page), file)) : page;
      count++;
      assert.ok(existsSync(path.join(root, target)), `${page} links to ${link}: ${target} does not exist`);
      if (hash) assert.ok(anchors(read(target)).has(hash), `${page} links to ${link}: no such heading in ${target}`);
    }
  }
  assert.ok(count >= 20, `${count} links`);
});

test('every docs page, the lab guide and the costs are linked from the README', () => {
  const linked = new Set([...readme.matchAll(/\]\(([^)#\s]+)/g)].map((m) => path.normalize(m[1])));
  for (const page of pages.filter((p) => p !== 'README.md')) assert.ok(linked.has(page), `${page} is not linked from the README`);
});
