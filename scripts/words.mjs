// The words that cross between the shell and the core (src/words.json) are declared once: the end
// kinds by the code the shell passes, the reasons an answer's element could not be read, and the
// wire formats. From that this script generates js/words.js (the codes of the end kinds and DOM
// reasons, numbers a bundler inlines where they are used), js/core/weak.js (the weak formats)
// and js/words.d.ts (the TypeScript `Format` that js/index.d.ts re-exports, and the codes).
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

/** Every generated file and its text. */
export function generate(decl = load()) {
  return { 'js/words.js': js(decl), 'js/words.d.ts': dts(decl), 'js/core/weak.js': weak(decl) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(generate())) writeFileSync(path.join(root, file), text);
  console.log('wrote js/words.js, js/words.d.ts and js/core/weak.js from src/words.json');
}
