// The words that cross between the shell and the core are declared once (issue 60):
// src/words.json. The shell's side is generated from it (scripts/words.mjs: js/words.js,
// js/words.d.ts), and the core's lists are held to it by src/words.rs (both ways, in order).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generate, load, callsDiffer } from '../../scripts/words.mjs';
import * as words from '../../js/words.js';
import { WEAK } from '../../js/core/weak.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (f) => readFileSync(path.join(root, f), 'utf8');

test('every file generated from src/words.json is current (else: node scripts/words.mjs)', () => {
  for (const [file, text] of Object.entries(generate())) assert.equal(read(file), text, `${file} is not current: run node scripts/words.mjs`);
});

test('a word changed in the declaration makes the generated files stale, each list once', () => {
  const now = generate();
  const changes = {
    endKinds: (d) => d.endKinds.reverse(),
    domReasons: (d) => (d.domReasons[0].name = 'closed-shadow'),
    formats: (d) => (d.formats.find((f) => f.name === 'json').weak = false),
  };
  for (const [list, change] of Object.entries(changes)) {
    const decl = load();
    change(decl);
    const stale = Object.entries(generate(decl)).filter(([file, text]) => text !== now[file]).map(([file]) => file);
    assert.ok(stale.length > 0, `${list}: a generated file goes stale`);
  }
});

test("the shell's words are the declared ones", () => {
  const decl = load();
  assert.deepEqual([words.END_COMPLETE, words.END_ABORTED, words.END_FAILED], [0, 1, 2]);
  assert.deepEqual(decl.endKinds.map((k) => k.name), ['complete', 'aborted', 'failed']);
  assert.deepEqual([words.UNSEEN_CLOSED_SHADOW_ROOT, words.UNSEEN_CROSS_ORIGIN_IFRAME, words.UNSEEN_NOT_OBSERVED, words.UNSEEN_NOT_FOUND], [0, 1, 2, 3]);
  assert.deepEqual(decl.domReasons.map((r) => r.name), ['closed-shadow-root', 'cross-origin-iframe', 'not-observed', 'not-found']);
  assert.deepEqual([...WEAK], ['', ...decl.formats.filter((f) => f.weak).map((f) => f.name)]);
});

test('no end code or DOM reason is written as a literal where it crosses into the core', () => {
  const strip = (f) => read(f).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  for (const f of ['js/transports/tap.js', 'js/transports/transports.js', 'js/transports/sockets.js', 'js/core/stream.js']) {
    assert.doesNotMatch(strip(f), /\.(end|closeAll)\((0|1|2)\b|AbortError' \? 1 : 2|\? (0|1) : 2,/, f);
  }
  for (const f of ['js/browser/shadow.js', 'js/browser/watch.js']) {
    for (const r of load().domReasons) assert.ok(!strip(f).includes(`'${r.name}'`), `${f}: '${r.name}'`);
  }
});

// The calls into the core that take many arguments are declared once, each as one record
// (src/words.json `calls`): the shell names every argument (js/core/calls.js, generated), and the
// core's order is held to the declaration through what the compiler emits (wasm-bindgen's
// declaration of the built core, pkg/tokenpaint_core.d.ts).
test("the core takes each declared call's arguments in the declared order", () => {
  const dts = read('pkg/tokenpaint_core.d.ts');
  assert.deepEqual(callsDiffer(load(), dts), []);
  // Two of the core's parameters reordered (as a change of src/wasm.rs would emit), or two of
  // the declaration's: each fails.
  const swapped = dts.replace('start: number, headers_at: number', 'headers_at: number, start: number');
  assert.notEqual(swapped, dts);
  assert.match(callsDiffer(load(), swapped).join(), /^open: declared \(.*start: number, headersAt: number.*\), the core takes \(.*headersAt: number, start: number/);
  const decl = load();
  const args = decl.calls.painted.args;
  [args[0], args[2]] = [args[2], args[0]];
  assert.match(callsDiffer(decl, dts).join(), /^painted: declared \(after: number, cutoff: number, frame: number/);
  // A call the core no longer has.
  assert.match(callsDiffer(load(), dts.replace('painted_one(', 'paintedOne(')).join(), /paintedOne: the core has no method painted_one/);
});

test('the shell makes every declared call through its record, never positionally', () => {
  const methods = Object.values(load().calls).map((c) => c.core);
  // The shell, and everything else that drives a core: the benchmarks, the lab, the tests, the
  // scripts (a positional call left there passes the wrong values, or throws, once the core's
  // order changes: bench/parser.mjs did, unnoticed, until this looked there too).
  // The tracked files only: the Rust checks beside these tests rebuild examples/*/dist meanwhile.
  const files = execFileSync('git', ['ls-files', '-z', '--', 'js', 'bench', 'www', 'tests', 'scripts', 'examples'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((f) => /\.(m?js|jsx)$/.test(f) && f !== 'js/core/calls.js');
  assert.ok(files.some((f) => f.startsWith('bench')), 'the benchmarks are looked at');
  const direct = [];
  for (const f of files) {
    const code = read(f).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    for (const m of methods) if (new RegExp(`\\bc\\.${m}\\(|\\bcore\\.${m}\\(`).test(code)) direct.push(`${f}: ${m}`);
  }
  assert.deepEqual(direct, []);
  // The generated calls pass the record's fields in the declared order.
  const text = read('js/core/calls.js');
  for (const [name, call] of Object.entries(load().calls)) {
    const line = text.split('\n').find((l) => l.startsWith(`export const ${name} = `));
    assert.ok(line, name);
    assert.deepEqual([...line.matchAll(/\ba\.(\w+)/g)].map((m) => m[1]), call.args.map((a) => a.name), name);
  }
});
