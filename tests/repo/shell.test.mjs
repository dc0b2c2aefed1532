// The shell type-checked (issue 50): tsc checks the shell's JavaScript with the JSDoc types it
// declares (tsconfig.shell.json; the Node-side modules in tsconfig.node.json), strictly: an
// untyped parameter or local fails the check (noImplicitAny), and so does a module that
// writes a field its owner never declared fails the check: `Stream` declares every field, and
// the hub and the watch keep their own state (the metered streams, the element that showed an
// answer) instead of writing it on the stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');

/** tsc's output for `project` ('' when clean); `flags`: more of tsc's options. */
function check(project, cwd = root, flags = []) {
  try {
    return execFileSync(tsc, ['--project', project, ...flags], { cwd, encoding: 'utf8' }).trim();
  } catch (e) {
    return (String(e.stdout) + String(e.stderr)).trim() || `tsc failed: ${e.message}`;
  }
}

for (const project of ['tsconfig.shell.json', 'tsconfig.node.json']) {
  test(`the shell type-checks with no error (${project})`, () => {
    assert.equal(check(project), '');
  });
}

test("a module that writes a stream's undeclared field fails the check; its declared ones pass", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-shell-'));
  const stream = path.join(root, 'js/core/stream.js');
  writeFileSync(
    path.join(dir, 'probe.js'),
    `/** @param {import(${JSON.stringify(stream)}).Stream} s */
export function reported(s) {
  s.element = { selector: 'div', how: 'target' };
  s.lastCommit = 1;
  s.metered = true;
}
`,
  );
  const config = JSON.parse(readFileSync(path.join(root, 'tsconfig.shell.json'), 'utf8'));
  config.include = ['probe.js'];
  delete config.exclude;
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
  const out = check('tsconfig.json', dir);
  assert.match(out, /probe\.js\(5,5\): error TS2339: Property 'metered' does not exist on type 'Stream'/);
  assert.doesNotMatch(out, /'element'|'lastCommit'/);
});

test('an untyped parameter fails the check (noImplicitAny): every parameter of the shell is typed', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-shell-'));
  writeFileSync(path.join(dir, 'probe.js'), 'export function untyped(x) {\n  return x;\n}\n/** @param {number} y */\nexport function typed(y) {\n  return y;\n}\n');
  const config = JSON.parse(readFileSync(path.join(root, 'tsconfig.shell.json'), 'utf8'));
  config.include = ['probe.js'];
  delete config.exclude;
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
  const out = check('tsconfig.json', dir);
  assert.match(out, /probe\.js\(1,25\): error TS7006: Parameter 'x' implicitly has an 'any' type/);
  assert.doesNotMatch(out, /'y'/);
});
