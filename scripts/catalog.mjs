// The verdict catalog (src/verdicts.json) is the one declaration of every verdict: its id, when
// it is given, and its fixes' texts by fix id. The core gives verdict and fix ids; from the
// catalog this script generates the shell's texts (js/verdicts.js) and the verdict table of
// docs/diagnosis.md. `node scripts/catalog.mjs` writes them; tests/repo/catalog.test.mjs fails
// when either is not current, and src/figures/catalog.rs's test when the core's ids and the
// catalog's differ.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceTable } from './doctable.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCS = 'docs/diagnosis.md';
const HEAD = '| verdict | when | what to do |\n|---|---|---|\n';

/** The catalog, read from `text` (src/verdicts.json by default). */
export function load(text = readFileSync(path.join(root, 'src/verdicts.json'), 'utf8')) {
  return JSON.parse(text);
}

/** js/verdicts.js: each fix's text by its id, and the function that adds them to a diagnosis. */
export function shell(catalog) {
  const fixes = Object.fromEntries(catalog.verdicts.flatMap((v) => Object.entries(v.fixes)));
  const entries = (o) => Object.entries(o).map(([id, text]) => `  ${JSON.stringify(id)}: ${JSON.stringify(text)},`).join('\n');
  const titles = Object.fromEntries(catalog.verdicts.map((v) => [v.id, v.title]));
  const scripted = catalog.verdicts.filter((v) => v.namesScript).map((v) => v.id);
  return `// Generated from src/verdicts.json by scripts/catalog.mjs: do not edit.

/**
 * Each fix's text, by fix id (a verdict's name, or name/variant).
 * @type {Readonly<Record<string, string>>}
 */
export const FIXES = {
${entries(fixes)}
};

/**
 * Each verdict's title, by its name.
 * @type {Readonly<Record<string, string>>}
 */
export const TITLES = {
${entries(titles)}
};

/** The verdicts of the page's own work, which name its heaviest script where the browser can. */
export const NAMES_SCRIPT = ${JSON.stringify(scripted)};

/**
 * Adds to each verdict of \`diagnosis\` (a report's or a summary's) the text of its fix (\`fix\`),
 * from its fix id (\`fixId\`): the core gives ids, the catalog the words. Returns it.
 * @param {Array<{ fixId?: string, fix?: string }> | null | undefined} diagnosis
 */
export function withFixes(diagnosis) {
  for (const v of diagnosis || []) v.fix = (v.fixId && FIXES[v.fixId]) || '';
  return diagnosis;
}
`;
}

/** docs/diagnosis.md's verdict table: the stream verdicts, in the catalog's order. */
export function table(catalog) {
  const cell = (s) => s.replace(/\|/g, '\\|');
  const rows = catalog.verdicts
    .filter((v) => v.of === 'stream')
    .map((v) => {
      const fixes = Object.entries(v.fixes);
      const todo = v.id === 'healthy' ? '' : fixes.length === 1 ? fixes[0][1] : fixes.map(([id, text]) => `\`${id}\`: ${text}`).join('<br>');
      return `| \`${v.id}\` | ${cell(v.when)} | ${cell(todo)} |`;
    });
  return HEAD + rows.join('\n') + '\n';
}

/** docs/diagnosis.md with its verdict table generated from the catalog (`doc`: the file's text). */
export function docs(catalog, doc) {
  return replaceTable(doc, HEAD, table(catalog), `${DOCS}: verdict`);
}

/** Every generated file, by path, with its text. */
export function generate(catalog = load()) {
  return {
    'js/verdicts.js': shell(catalog),
    [DOCS]: docs(catalog, readFileSync(path.join(root, DOCS), 'utf8')),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, text] of Object.entries(generate())) writeFileSync(path.join(root, file), text);
  console.log('wrote js/verdicts.js and the verdict table of docs/diagnosis.md from src/verdicts.json');
}
