// The words that cross between the shell and the core (src/words.json) are declared once: the end
// kinds by the code the shell passes, the reasons an answer's element could not be read, and the
// wire formats. From that this script generates js/words.js (the codes of the end kinds and DOM
// reasons, numbers a bundler inlines where they are used), js/core/weak.js (the weak formats)
// and js/words.d.ts (the TypeScript `Format` that js/index.d.ts re-exports, and the codes), and
// js/core/calls.js (each call into the core that takes many arguments, as a function of one record).
// `node scripts/words.mjs` writes them; tests/repo/words.test.mjs fails when one is not current,
// and src/words.rs holds the core's own lists to the same file.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HEAD = '// Generated from src/words.json by scripts/words.mjs: do not edit.\n';

/** The declaration, read from `text` (src/words.json by default). */
export function load(text = readFileSync(path.join(root, 'src/words.json'), 'utf8')) {
  return JSON.parse(text);
}

const constant = (prefix, name) => `${prefix}_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;
const q = (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** js/words.js. */
export function js(decl) {
  let out = HEAD;
  out += '\n// How a stream\'s body ended: the code the shell passes to the core (`Core.end`).\n';
  decl.endKinds.forEach((k, i) => (out += `/** ${k.doc[0].toUpperCase()}${k.doc.slice(1)}. */\nexport const ${constant('END', k.name)} = ${i};\n`));
  out += "\n// Why the answer's element could not be read: the code the shell passes to the core\n// (`Core.dom_reason`), whose report names it.\n";
  decl.domReasons.forEach((r, i) => (out += `/** \`${r.name}\`: ${r.doc}. */\nexport const ${constant('UNSEEN', r.name)} = ${i};\n`));
  return out;
}

/**
 * js/core/weak.js: a module of its own, as a bundler cannot inline a Set. The eager side
 * (js/core/stream.js) and the learning chunk both read it, and neither imports the other; the
 * stub, which imports js/words.js's codes, never takes it.
 */
export function weak(decl) {
  let out = HEAD;
  out += '\n/**\n * Formats whose reader finds no answer of its own, and `\'\'` (not known yet): where the profiler\n';
  out += ' * only guessed that a stream carries an answer, the page decides (js/core/learning.js).\n */\n';
  out += `export const WEAK = new Set([${['', ...decl.formats.filter((f) => f.weak).map((f) => f.name)].map(q).join(', ')}]);\n`;
  return out;
}

/** js/words.d.ts. */
export function dts(decl) {
  let out = HEAD;
  out += '\n/** A stream format tokenpaint reads, or `auto` to detect it. */\nexport type Format =\n';
  out += ['auto', ...decl.formats.filter((f) => f.option).map((f) => f.name)].map((n) => `  | ${q(n)}`).join('\n');
  out += ';\n';
  decl.endKinds.forEach((k, i) => (out += `export declare const ${constant('END', k.name)}: ${i};\n`));
  decl.domReasons.forEach((r, i) => (out += `export declare const ${constant('UNSEEN', r.name)}: ${i};\n`));
  return out;
}

/**
 * js/core/calls.js: each call into the core that takes many arguments, as a function of one
 * record (`calls`): the shell names each argument, and only this generated file knows their order.
 */
export function calls(decl) {
  let out = HEAD;
  out += '// Each call into the core that takes many arguments, as a function of one record: the shell\n';
  out += '// names every argument, and only this file knows the order the core takes them in.\n';
  out += "\n/** @typedef {import('../../pkg/tokenpaint_core.js').Core} Core */\n";
  for (const [name, call] of Object.entries(decl.calls)) {
    const type = `${name[0].toUpperCase()}${name.slice(1)}Args`;
    out += `\n/**\n * \`Core.${call.core}\`'s arguments.\n * @typedef {object} ${type}\n`;
    for (const a of call.args) out += ` * @property {${a.type}} ${a.optional ? `[${a.name}]` : a.name} ${a.doc}\n`;
    out += ' */\n';
    out += `\n/**\n * ${call.doc}\n * @param {Core} c\n * @param {${type}} a\n */\n`;
    // Left out, a string is ''; a number or a flag is passed as nothing, which the glue's `+x`
    // reads as NaN, and wasm as 0 where it takes an integer.
    const arg = (a) => (!a.optional ? `a.${a.name}` : a.type === 'string' ? `a.${a.name} || ''` : `/** @type {${a.type}} */ (a.${a.name})`);
    out += `export const ${name} = (c, a) => c.${call.core}(${call.args.map(arg).join(', ')});\n`;
  }
  return out;
}

/** Every generated file and its text. */
export function generate(decl = load()) {
  return { 'js/words.js': js(decl), 'js/words.d.ts': dts(decl), 'js/core/weak.js': weak(decl), 'js/core/calls.js': calls(decl) };
}

/**
 * The parameters of each declared call as the core takes them (wasm-bindgen's declaration of
 * the compiled core, pkg/tokenpaint_core.d.ts: Rust's names, snake_case), against the declared
 * order: a list of what differs, empty when none does.
 */
export function callsDiffer(decl, dts) {
  const camel = (n) => n.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
  const out = [];
  // The class Core's own declaration (another class may have a method of the same name).
  const at = dts.indexOf('export class Core ');
  const core = at < 0 ? '' : dts.slice(at, (dts.indexOf('\nexport ', at + 1) + 1 || dts.length + 1) - 1);
  for (const [name, call] of Object.entries(decl.calls)) {
    const m = new RegExp(`\\n {4}${call.core}\\(([^)]*)\\)`).exec(core);
    if (!m) {
      out.push(`${name}: the core has no method ${call.core}`);
      continue;
    }
    const takes = m[1].split(',').map((p) => p.trim()).filter(Boolean).map((p) => { const [n, t] = p.split(/:\s*/); return `${camel(n)}: ${t}`; });
    const want = call.args.map((a) => `${a.name}: ${a.type}`);
    if (takes.join(', ') !== want.join(', ')) out.push(`${name}: declared (${want.join(', ')}), the core takes (${takes.join(', ')})`);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(generate())) writeFileSync(path.join(root, file), text);
  console.log(`wrote ${Object.keys(generate()).join(', ')} from src/words.json`);
}
