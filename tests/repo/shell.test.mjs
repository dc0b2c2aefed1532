// The shell type-checked (issue 50): tsc checks the shell's JavaScript with the JSDoc types it
// declares (tsconfig.shell.json; the Node-side modules in tsconfig.node.json), strictly: an
// untyped parameter or local fails the check (noImplicitAny), and so does a module that
// writes a field its owner never declared fails the check: `Stream` declares every field, and
// the hub and the watch keep their own state (the metered streams, the element that showed an
// answer) instead of writing it on the stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
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

// Issue 60: the shell's seam with the core's report is typed with the report's declaration
// (js/report.d.ts, generated from what the core declares), not `any`: a field the shell reads or
// writes under another name than the core's fails the check. Shown on a copy of the shell with
// one renamed read (assemble.js, `resourceTiming`) and one renamed write (reports.js's failed
// report, `unavailable`).
test('a report field renamed on the shell\'s side only fails the check', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-seam-'));
  cpSync(path.join(root, 'js'), path.join(dir, 'js'), { recursive: true });
  symlinkSync(path.join(root, 'pkg'), path.join(dir, 'pkg'));
  cpSync(path.join(root, 'tsconfig.shell.json'), path.join(dir, 'tsconfig.json'));
  assert.equal(check('tsconfig.json', dir), '', 'the copy checks as the shell does');
  const edit = (file, from, to) => {
    const p = path.join(dir, 'js', file);
    const text = readFileSync(p, 'utf8');
    assert.ok(text.includes(from), `${file} has ${from}`);
    writeFileSync(p, text.replace(from, to));
  };
  edit('core/assemble.js', 'if (report.resourceTiming)', 'if (report.resourceTimings)');
  edit('core/reports.js', "unavailable: ['report']", "unavailables: ['report']");
  const out = check('tsconfig.json', dir);
  assert.match(out, /assemble\.js\(\d+,\d+\): error TS2551: Property 'resourceTimings' does not exist on type 'StreamReport'/);
  assert.match(out, /reports\.js\(\d+,\d+\): error TS2352: .*unavailables/s);
});

// Every `any` left in the shell is a foreign object's (an app's socket, an OpenTelemetry API, a
// browser entry the DOM's types lack): none is a report, a progress or a metric.
test("no report, progress or metric is typed any in the shell", () => {
  const files = readdirSync(path.join(root, 'js'), { recursive: true }).filter((f) => f.endsWith('.js'));
  const found = [];
  for (const f of files) {
    const text = readFileSync(path.join(root, 'js', f), 'utf8');
    for (const m of text.matchAll(/@(?:param|type|returns) \{[^}]*\bany\b[^}]*\}\s*\[?(\w*)|\((r|report|progress|metric): any\)|\b(report|reports): any\b/g)) {
      const name = m[1] ?? m[2] ?? m[3] ?? '';
      if (/^(r|report|reports|progress|metric|payload)$/.test(name) && !(name === 'payload' && f.endsWith('learning.js'))) found.push(`${f}: ${m[0]}`);
      if (/\ba report\b/.test(text.slice(m.index, m.index + 120)) && m[0].startsWith('@returns')) found.push(`${f}: ${m[0]}`);
    }
  }
  assert.deepEqual(found, []);
});
