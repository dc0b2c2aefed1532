// The lab in parts (issue 60): every module of www/ at most 300 lines, each a job of its own, and
// no import cycle between them (they import each other by the demo server's absolute paths,
// `/www/…`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { cycles, importsOf } from '../support/graph.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const www = path.join(root, 'www');
const modules = readdirSync(www).filter((f) => f.endsWith('.js'));

/** The lab's modules a lab module imports (`/www/name.js`). */
const labImports = (source) => importsOf(source, '\\/www\\/([^\'"]+)');

test('the lab import reader sees what it is given', () => {
  const src = "import { a } from '/www/a.js';\n// import '/www/b.js';\nimport init from '/js/index.js';\nexport { c } from '/www/c.js';\nimport '/www/d.js';";
  assert.deepEqual(labImports(src), ['a.js', 'c.js', 'd.js']);
});

test('every module of the lab is at most 300 lines', () => {
  assert.ok(modules.length >= 8, `read ${modules.length} modules`);
  const long = modules.map((f) => [f, readFileSync(path.join(www, f), 'utf8').split('\n').length - 1]).filter(([, n]) => n > 300);
  assert.deepEqual(long, []);
});

test('no import cycle between the lab modules', () => {
  const graph = new Map(modules.map((f) => [f, labImports(readFileSync(path.join(www, f), 'utf8'))]));
  for (const [f, to] of graph) for (const t of to) assert.ok(graph.has(t), `${f} imports /www/${t}, which is not there`);
  assert.deepEqual(cycles(graph).map((c) => c.join(' → ')), []);
});
