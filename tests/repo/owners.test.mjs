// Each stream's state has one owner (issue 60): a stream gets its collaborators by name when it
// opens (js/core/stream.js `Parts`), and reaches through no shared object; no class of the shell
// has more than 10 public fields that can be written (tsc enforces `@readonly`); the learning
// chunk (js/core/learning.js) never calls back into its loader (js/core/learners.js).
// The fields are read from the declarations tsc emits for the shell, not from its source.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
const MAX_PUBLIC_MUTABLE = 10;

function tscOut(args, cwd = root) {
  try {
    return execFileSync(tsc, args, { cwd, encoding: 'utf8' }).trim();
  } catch (e) {
    return (String(e.stdout) + String(e.stderr)).trim();
  }
}

function files(dir, ext) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), ext) : e.name.endsWith(ext) ? [path.join(dir, e.name)] : []));
}

/**
 * The classes of a declaration file and their instance fields: `{ name, fields: [{ name, readonly }] }`.
 * A field is read-only when declared `readonly`, or with `@readonly` in its doc comment (tsc
 * keeps the tag, not the keyword, for a field a JS constructor assigns). Static members,
 * methods, accessors and `#private` are not fields here.
 */
export function classesOf(dts) {
  const out = [];
  const lines = dts.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(?:export )?(?:declare )?class (\w+)/.exec(lines[i].trim());
    if (!m || !lines[i].trimEnd().endsWith('{')) continue;
    const fields = [];
    let depth = 1;
    let doc = '';
    for (i++; i < lines.length && depth > 0; i++) {
      const line = lines[i];
      const atTop = depth === 1;
      for (const ch of line.replace(/\/\*.*?\*\/|\/\/.*$/g, '')) depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
      if (!atTop) continue;
      const t = line.trim();
      if (t.startsWith('/**') || t.startsWith('*')) {
        doc = t.startsWith('/**') ? t : doc + t;
        continue;
      }
      const f = /^(readonly\s+)?([A-Za-z_$][\w$]*)\??\s*[:=]/.exec(t);
      if (f && !/^static\s/.test(t)) fields.push({ name: f[2], readonly: !!f[1] || /@readonly\b/.test(doc) });
      doc = '';
    }
    i--;
    out.push({ name: m[1], fields });
  }
  return out;
}

test('the field reader sees fields, read-only ones, and leaves out methods, accessors and statics', () => {
  const dts = `export declare class A {
    #private;
    /** @readonly */
    id: number;
    /**
     * Where it stands.
     * @readonly
     */
    readonly z = 0;
    read: {
        by: string;
    } | null;
    n?: number;
    static open(x: number): A;
    get size(): number;
    constructor(a: { b: number });
    call<T>(fn: (c: number) => T): T;
}
declare class B {
    x: number;
}`;
  assert.deepEqual(classesOf(dts), [
    { name: 'A', fields: [{ name: 'id', readonly: true }, { name: 'z', readonly: true }, { name: 'read', readonly: false }, { name: 'n', readonly: false }] },
    { name: 'B', fields: [{ name: 'x', readonly: false }] },
  ]);
});

test(`no class of the shell has more than ${MAX_PUBLIC_MUTABLE} public fields that can be written`, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-dts-'));
  tscOut(['--project', 'tsconfig.shell.json', '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--outDir', dir]);
  const classes = files(dir, '.d.ts').flatMap((f) => classesOf(readFileSync(f, 'utf8')).map((c) => ({ ...c, file: path.relative(dir, f) })));
  const byName = new Map(classes.map((c) => [c.name, c]));
  // The declarations were emitted and read: the classes this issue is about are among them.
  for (const name of ['Stream', 'Hub', 'DomWatch', 'CoreLink', 'Reports', 'Learning', 'Teacher', 'Sidecar']) assert.ok(byName.has(name), `${name} among ${[...byName.keys()].join(', ')}`);
  const over = classes
    .map((c) => ({ where: `${c.file} ${c.name}`, mutable: c.fields.filter((f) => !f.readonly).map((f) => f.name) }))
    .filter((c) => c.mutable.length > MAX_PUBLIC_MUTABLE);
  assert.deepEqual(over, []);
  // What a stream is, is set once: tsc refuses a write to it.
  const stream = byName.get('Stream');
  for (const f of ['id', 'url', 'fullUrl', 'target', 'read']) assert.ok(stream.fields.find((x) => x.name === f)?.readonly, `Stream.${f} read-only`);
});

test("tsc refuses a write to a stream's read-only field, and allows its state's", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-owner-'));
  const stream = path.join(root, 'js/core/stream.js');
  writeFileSync(path.join(dir, 'probe.js'), `/** @param {import(${JSON.stringify(stream)}).Stream} s */\nexport function f(s) {\n  s.lastCommit = 1;\n  s.url = 'x';\n}\n`);
  const config = JSON.parse(readFileSync(path.join(root, 'tsconfig.shell.json'), 'utf8'));
  config.include = ['probe.js'];
  delete config.exclude;
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
  const out = tscOut(['--project', 'tsconfig.json'], dir);
  assert.match(out, /probe\.js\(4,5\): error TS2540: Cannot assign to 'url' because it is a read-only property/);
  assert.doesNotMatch(out, /'lastCommit'/);
});

test('a stream reaches through no shared object: its collaborators are named once where they are handed over', () => {
  const src = readFileSync(path.join(root, 'js/core/stream.js'), 'utf8');
  const code = src.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  // The hub is not in it (comments and JSDoc types aside: at most 3 mentions in all).
  assert.ok((src.match(/\bhub\b/gi) || []).length <= 3, 'hub named at most 3 times');
  assert.doesNotMatch(code, /\bhub\b/i);
  // Its parts are taken apart where they come in, never reached through: no `parts.x`.
  assert.deepEqual(code.match(/\bparts\.\w+/g) || [], []);
  // No chain through a collaborator to another one (`this.#a.b.c(`): a collaborator is called.
  assert.deepEqual(code.match(/this\.#\w+\.\w+\.\w+/g) || [], []);
});

test('the learning chunk does not call back into its loader or the hub', () => {
  const src = readFileSync(path.join(root, 'js/core/learning.js'), 'utf8');
  const code = src.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  assert.doesNotMatch(code, /\bhub\b/i);
  assert.doesNotMatch(code, /\.learning\b/);
  assert.doesNotMatch(code, /from '\.\/(learners|hub)\.js'/);
});
