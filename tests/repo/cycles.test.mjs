// No import cycle in js/ (issue 60): every relative import (static, re-export or dynamic `import()`)
// of the shell's modules, comments aside (JSDoc types name modules without importing them). A
// cycle makes the order of evaluation matter: a constant read before its module has run is
// `undefined` in one bundler's output and fine in another's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { cycles, importsOf } from '../support/graph.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const js = path.join(root, 'js');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.js') ? [path.join(dir, e.name)] : []));
}

test('the import reader and the cycle finder see what they are given', () => {
  const src = "import { a } from './a.js';\n// import { b } from './b.js';\n/** @type {import('./c.js').C} */\nexport * from '../d.js';\nconst m = import('./e.js');\nimport './f.js';\nconst u = 'http://x/'; import {\n  g,\n} from './g.js';";
  assert.deepEqual(importsOf(src).sort(), ['../d.js', './a.js', './e.js', './f.js', './g.js']);
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]])), [['a', 'b', 'c', 'a']]);
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', []]])), []);
});

test('no import cycle in js/', () => {
  const graph = new Map();
  for (const f of files(js)) {
    const rel = (p) => path.relative(js, p);
    graph.set(rel(f), importsOf(readFileSync(f, 'utf8')).map((i) => rel(path.resolve(path.dirname(f), i))));
  }
  assert.ok(graph.size > 30, `read ${graph.size} modules`);
  assert.deepEqual(cycles(graph).map((c) => c.join(' → ')), []);
});
