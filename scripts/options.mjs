// The options (src/options.json) are declared once: each one's name, TypeScript type, default and
// meaning, and the name the core's configuration reads it by. From that this script generates
// js/options.js (`DEFAULTS`), js/options.d.ts (`ProfilerOptions`, which js/index.d.ts
// re-exports) and the table of docs/options.md. `node scripts/options.mjs` writes them;
// tests/repo/options.test.mjs fails when one is not current, and src/streams.rs's test when the
// core's own default of an option it reads differs from the declared one.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceTable } from './doctable.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = 'docs/options.md';
const HEAD = '| option | default | meaning |\n|---|---|---|\n';
// The one default that is not a literal: the rating thresholds (js/ratings.js).
const THRESHOLDS = '$THRESHOLDS';

/** The options, read from `text` (src/options.json by default). */
export function load(text = readFileSync(path.join(root, 'src/options.json'), 'utf8')) {
  return JSON.parse(text);
}

const literal = (v) => (v === THRESHOLDS ? 'THRESHOLDS' : typeof v === 'string' ? `'${v.replace(/'/g, "\\'")}'` : JSON.stringify(v));

/** How the docs show an option's default. */
function shown(o) {
  if (o.shown) return o.shown;
  if (o.default === null) return 'none';
  return `\`${literal(o.default)}\``;
}

/** js/options.js: the defaults. */
export function defaults(decl) {
  const rows = decl.options.filter((o) => o.inDefaults !== false).map((o) => `  ${o.name}: ${literal(o.default)},`);
  return `// Generated from src/options.json by scripts/options.mjs: do not edit.
import { THRESHOLDS } from './ratings.js';

/** Default options. */
export const DEFAULTS = Object.freeze({
${rows.join('\n')}
});

/** The keys of the core's configuration (src/streams.rs \`Config\`), as the shell writes them. */
export const CONFIG_KEYS = Object.freeze(${JSON.stringify((decl.config || []).map((c) => c.key))});

/**
 * The core's configuration as one value (\`Core.configure\`): a \`key=value\` line for each key
 * given, its value as declared (a number as JavaScript writes it, a flag 1 or 0, a text on one line).
 * @param {Partial<import('./options.js').CoreConfig>} values
 */
export const configText = (values) =>
  Object.entries(values)
    .map(([k, v]) => \`\${k}=\${typeof v === 'boolean' ? +v : String(v).replace(/\\n/g, ' ')}\`)
    .join('\\n');

/** The Resource Timing entry's fields, in the order \`Core.resource\` takes them. */
export const RESOURCE_FIELDS = Object.freeze(${JSON.stringify(decl.resource || [])});

/** \`Core.render\`'s result: committed + resume × the resume limit, or \`whole\` (the whole text). */
export const RENDER = Object.freeze(${JSON.stringify(decl.render || {})});
`;
}

/** The TypeScript type of a configuration value of each declared type. */
const CONFIG_TYPES = { number: 'number', flag: 'boolean', text: 'string' };

/** js/options.d.ts: the options' type. */
export function types(decl) {
  const props = decl.options.map((o) => {
    const doc = `${o.doc[0].toUpperCase()}${o.doc.slice(1)} (default: ${shown(o).replace(/`/g, '')}).`;
    return `  /** ${doc.replace(/\*\//g, '*\\/')} */\n  ${o.name}?: ${o.type};`;
  });
  return `// Generated from src/options.json by scripts/options.mjs: do not edit.
import type { Format } from './index.js';
import type { RatedMetric, SloMetric } from './report.js';

/** The options of \`new Profiler(options)\` (docs/options.md). */
export interface ProfilerOptions {
${props.join('\n')}
}

/** Default options (all but \`fetch\`, the global fetch at construction). */
export declare const DEFAULTS: Readonly<Required<Omit<ProfilerOptions, 'fetch'>>>;

/** The keys of the core's configuration, as the shell writes them. */
export declare const CONFIG_KEYS: readonly string[];

/** The core's configuration (src/streams.rs \`Config\`; each key's meaning in src/options.json \`config\`): its values as the shell gives them. */
export interface CoreConfig {
${(decl.config || []).map((c) => `  ${c.key}: ${CONFIG_TYPES[c.type]};`).join('\n')}
}

/** The core's configuration as one value: a \`key=value\` line for each key given. */
export declare function configText(values: Partial<CoreConfig>): string;

/** The Resource Timing entry's fields, in the order \`Core.resource\` takes them. */
export declare const RESOURCE_FIELDS: readonly string[];

/** \`Core.render\`'s result: committed + resume × the resume limit, or \`whole\` (the whole text). */
export declare const RENDER: Readonly<{ resume: number; whole: number }>;
`;
}

/** docs/options.md's table. */
export function table(decl) {
  const cell = (s) => s.replace(/\|/g, '\\|').replace(/\n\s*/g, ' ');
  return HEAD + decl.options.map((o) => `| \`${o.name}\` | ${cell(shown(o))} | ${cell(o.doc)} |`).join('\n') + '\n';
}

/** docs/options.md with its table generated (`doc`: the file's text). */
export function docs(decl, doc) {
  return replaceTable(doc, HEAD, table(decl), `${DOCS}: options`);
}

/** Every generated file, by path, with its text. */
export function generate(decl = load()) {
  return {
    'js/options.js': defaults(decl),
    'js/options.d.ts': types(decl),
    [DOCS]: docs(decl, readFileSync(path.join(root, DOCS), 'utf8')),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(generate())) writeFileSync(path.join(root, file), text);
  console.log('wrote js/options.js, js/options.d.ts and the table of docs/options.md from src/options.json');
}
