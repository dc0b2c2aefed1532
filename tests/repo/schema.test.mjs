// One schema (issue 31): src/types.rs defines the report; js/report.d.ts, js/schema.js and the
// table of docs/report.md are generated from it (and from the core's thresholds and header
// list) by scripts/schema.mjs. Each must be current, and a change to the definition must show.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generate, parseTypes, reportTypes, literals } from '../../scripts/schema.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('every file generated from src/types.rs is current (else: node scripts/schema.mjs)', () => {
  for (const [file, text] of Object.entries(generate())) {
    assert.equal(readFileSync(path.join(root, file), 'utf8'), text, `${file} is not current: run node scripts/schema.mjs`);
  }
});

test('a new field of Report shows in the generated types', () => {
  const src = readFileSync(path.join(root, 'src/types.rs'), 'utf8');
  const more = src.replace('    pub ttfb: Option<f64>,\n', '    pub ttfb: Option<f64>,\n    /// Time to the first paint of anything. Null only in a failed report.\n    pub first_paint_ms: Option<f64>,\n');
  assert.notEqual(more, src);
  const before = reportTypes(parseTypes(src));
  const after = reportTypes(parseTypes(more));
  assert.ok(!before.includes('firstPaintMs'));
  assert.match(after, /\n {2}firstPaintMs: number;\n/);
  assert.match(after, /'firstPaintMs'/, 'and a failed report sets it to null');
});

test('the conventions: literals, with explanations in parentheses left out', () => {
  assert.deepEqual(literals('Who: one of `nothing`, `intermediary` or `page` (reads bunched while `x`). More `y`.'), ['nothing', 'intermediary', 'page']);
  assert.equal(literals('`usage` or `counted`'), null);
});
