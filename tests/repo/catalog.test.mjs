// The verdict catalog (issue 50): src/verdicts.json declares every verdict once; js/verdicts.js
// (the fix texts the shell adds, the titles, the verdicts that name a script) and the verdict
// table of docs/diagnosis.md are generated from it by scripts/catalog.mjs, and the core's ids
// are held to it by src/figures/catalog.rs's test. The wasm holds no fix text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generate, load, shell, docs } from '../../scripts/catalog.mjs';
import { FIXES, TITLES, withFixes } from '../../js/verdicts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (f) => readFileSync(path.join(root, f), 'utf8');

test('every file generated from src/verdicts.json is current (else: node scripts/catalog.mjs)', () => {
  for (const [file, text] of Object.entries(generate())) assert.equal(read(file), text, `${file} is not current: run node scripts/catalog.mjs`);
});

test('a verdict added to the catalog shows in the shell and the docs, one removed goes from both', () => {
  const cat = load();
  const more = structuredClone(cat);
  more.verdicts.push({ id: 'font-bound', of: 'stream', title: 'Fonts', when: 'a web font held the text', fixes: { 'font-bound': 'Use font-display: swap.' } });
  assert.match(shell(more), /"font-bound": "Use font-display: swap\."/);
  assert.match(docs(more, read('docs/diagnosis.md')), /\| `font-bound` \| a web font held the text \| Use font-display: swap\. \|/);
  const less = structuredClone(cat);
  less.verdicts = less.verdicts.filter((v) => v.id !== 'decode-stall');
  assert.doesNotMatch(shell(less), /"decode-stall"/);
  assert.doesNotMatch(docs(less, read('docs/diagnosis.md')), /\| `decode-stall` \|/);
});

test("the shell gives each verdict its fix's words from its id, and no words for an id the catalog lacks", () => {
  const d = withFixes([{ verdict: 'intermediary-buffered', fixId: 'intermediary-buffered/proxy' }, { verdict: 'x', fixId: 'no-such-fix' }, { verdict: 'y' }]);
  assert.match(d[0].fix, /proxy_buffering off/);
  assert.equal(d[1].fix, '');
  assert.equal(d[2].fix, '');
  assert.equal(withFixes(null), null);
  for (const v of load().verdicts) assert.ok(TITLES[v.id], `${v.id} has a title`);
});

test('the wasm holds no fix text: none of the catalog is in the core', () => {
  const wasm = path.join(root, 'pkg/tokenpaint_core_bg.wasm');
  const sources = ['src/figures/diagnosis.rs', 'src/summary.rs'].map(read).join('\n');
  const texts = Object.values(FIXES);
  assert.ok(texts.length >= 30);
  for (const t of texts) assert.ok(!sources.includes(t.slice(0, 40)), `the core's source still holds: ${t.slice(0, 60)}…`);
  // The built core too, where it was built (npm test builds it first).
  if (existsSync(wasm)) {
    const bytes = readFileSync(wasm).toString('latin1');
    for (const t of texts) assert.ok(!bytes.includes(t.slice(0, 40)), `the wasm holds: ${t.slice(0, 60)}…`);
  }
});
