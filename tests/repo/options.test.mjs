// The options declared once (issue 50): src/options.json gives each option's name, type, default
// and meaning; js/options.js (DEFAULTS), js/options.d.ts (ProfilerOptions) and docs/options.md's
// table are generated from it by scripts/options.mjs, and src/streams.rs's test holds the core's
// own defaults of the options it reads to the declared ones. Adding an option is one entry and
// `node scripts/options.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generate, load, defaults, types, docs } from '../../scripts/options.mjs';
import { DEFAULTS } from '../../js/options.js';
import { DEFAULTS as PUBLIC } from '../../js/profiler.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (f) => readFileSync(path.join(root, f), 'utf8');

test('every file generated from src/options.json is current (else: node scripts/options.mjs)', () => {
  for (const [file, text] of Object.entries(generate())) assert.equal(read(file), text, `${file} is not current: run node scripts/options.mjs`);
});

test('the defaults the profiler uses are the declared ones, every option but fetch', () => {
  const decl = load();
  assert.equal(PUBLIC, DEFAULTS);
  assert.deepEqual(Object.keys(DEFAULTS), decl.options.filter((o) => o.name !== 'fetch').map((o) => o.name));
  for (const o of decl.options) if (o.name !== 'fetch' && o.default !== '$THRESHOLDS') assert.deepEqual(DEFAULTS[o.name], o.default, o.name);
});

test('an option added to the declaration shows in the defaults, the type and the docs; one removed goes from all three', () => {
  const decl = load();
  const more = structuredClone(decl);
  more.options.push({ name: 'flushMs', type: 'number', default: 250, doc: 'how often reports are flushed' });
  assert.match(defaults(more), /\n {2}flushMs: 250,\n/);
  assert.match(types(more), /\/\*\* How often reports are flushed \(default: 250\)\. \*\/\n {2}flushMs\?: number;/);
  assert.match(docs(more, read('docs/options.md')), /\| `flushMs` \| `250` \| how often reports are flushed \|/);
  const less = structuredClone(decl);
  less.options = less.options.filter((o) => o.name !== 'lateMs');
  for (const text of [defaults(less), types(less), docs(less, read('docs/options.md'))]) assert.doesNotMatch(text, /lateMs/);
});
