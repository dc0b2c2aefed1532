// One schema (issues 31, 60): src/types.rs defines the report, and the core emits it as data
// (src/schema.json, written and held current by the native test in src/declared.rs, with the
// core's thresholds, header list and metric names); js/report.d.ts, js/schema.js and the table of
// docs/report.md are generated from that by scripts/schema.mjs, which reads no Rust. Each must
// be current, and a change to the declaration must show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generate, itemsOf, reportTypes, literals, baseOf } from '../../scripts/schema.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('every file generated from src/types.rs is current (else: node scripts/schema.mjs)', () => {
  for (const [file, text] of Object.entries(generate())) {
    assert.equal(readFileSync(path.join(root, file), 'utf8'), text, `${file} is not current: run node scripts/schema.mjs`);
  }
});

test('a new field of Report shows in the generated types', () => {
  const decl = JSON.parse(readFileSync(path.join(root, 'src/schema.json'), 'utf8'));
  const more = structuredClone(decl);
  const report = more.types.Report;
  // The field as the core would declare \`pub first_paint_ms: Option<f64>\` after \`ttfb\`.
  const at = Object.keys(report.properties).indexOf('ttfb') + 1;
  assert.ok(at > 0);
  const entries = Object.entries(report.properties);
  entries.splice(at, 0, ['firstPaintMs', { description: ' Time to the first paint of anything. Null only in a failed report.', type: ['number', 'null'], format: 'double' }]);
  report.properties = Object.fromEntries(entries);
  report.required.push('firstPaintMs');
  const before = reportTypes(itemsOf(decl));
  const after = reportTypes(itemsOf(more));
  assert.ok(!before.includes('firstPaintMs'));
  assert.match(after, /\n {2}firstPaintMs: number;\n/);
  assert.match(after, /'firstPaintMs'/, 'and a failed report sets it to null');
});

// A flattened group is declared once: the holder extends it. A struct sharing keys with another
// but not their docs or types (Verdict and GroupVerdict) is no match.
test('a struct holding all of another\'s fields as they are extends it, and no other does', () => {
  const decl = JSON.parse(readFileSync(path.join(root, 'src/schema.json'), 'utf8'));
  const items = itemsOf(decl);
  const bases = items.filter((i) => i.kind === 'struct').map((i) => [i.name, baseOf(i, items)?.name]).filter(([, b]) => b);
  assert.deepEqual(bases, [['Summary', 'SummaryGroup']]);
  const shared = items.find((i) => i.name === 'Verdict').fields.filter((f) => items.find((i) => i.name === 'GroupVerdict').fields.some((g) => g.key === f.key));
  assert.ok(shared.length >= 2, 'Verdict and GroupVerdict share keys');
  // One of the group's fields declared otherwise on the summary: it no longer extends the group.
  const other = structuredClone(decl);
  other.types.Summary.properties.count.description = ' Streams in the whole.';
  const flat = reportTypes(itemsOf(other));
  assert.match(flat, /export interface Summary \{\n/);
  assert.match(reportTypes(items), /export interface Summary extends SummaryGroup \{\n/);
});

// Issue 60: no generator reads Rust source as text. A Rust file named in a script's code (its
// comments aside) is one it opens. The function-length lint, which measures Rust's functions
// and generates nothing, is a test's helper (tests/support/fnlen.mjs), not a script.
test('scripts/ reads no Rust: every generator reads data (src/*.json) or what the core emits', async () => {
  const { readdirSync } = await import('node:fs');
  const scripts = readdirSync(path.join(root, 'scripts')).filter((f) => /\.m?js$/.test(f));
  assert.ok(scripts.includes('schema.mjs') && scripts.includes('floor.mjs'), scripts.join());
  for (const f of scripts) {
    const code = readFileSync(path.join(root, 'scripts', f), 'utf8').replace(/^\s*\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
    const named = [...code.matchAll(/['"`][^'"`\n]*\.rs['"`]/g)].map((m) => m[0]);
    assert.deepEqual(named, [], `${f} names Rust sources`);
  }
});

test('the conventions: literals, with explanations in parentheses left out', () => {
  assert.deepEqual(literals('Who: one of `nothing`, `intermediary` or `page` (reads bunched while `x`). More `y`.'), ['nothing', 'intermediary', 'page']);
  assert.equal(literals('`usage` or `counted`'), null);
});
