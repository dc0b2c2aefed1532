// The report's one definition is `src/types.rs` (the Rust types with their docs). The core
// emits it as data, `src/schema.json` (written by the native test in src/declared.rs: the types
// as schemars' JSON Schema, as serde writes them, and the core's lists), and the rest of what
// repeats its shape is generated from that file here, on the host; nothing here reads Rust:
//
// - `js/report.d.ts`: the TypeScript types of reports, summaries and progress, and the metric
//   unions (`SummaryMetric`, `SloMetric`, `RatedMetric`) from the core's own lists;
// - `js/schema.js`: the keys a failed report sets to null, the default rating thresholds
//   (`THRESHOLDS` in `src/figures/browser.rs`) and the response headers the core reads
//   (`HEADERS` in `src/read/mod.rs`);
// - the report table of `docs/report.md` (between its `schema:report` markers).
//
// `npm run schema` writes src/schema.json, then runs this, which rewrites them; `--check` fails,
// naming the file, when one is not current (`tests/repo/schema.test.mjs` runs it in `npm test`;
// the native test fails when src/schema.json is not). Conventions read from the docs:
// - "One of `a`, `b` or `c`" (values in parentheses are explanations) makes a string a union of
//   those literals;
// - "Null only in a failed report." makes an `Option` non-null in a stream's report;
// - "Kept in a failed report." keeps an `Option` field in a failed report (else it is null);
// - "Always there in the browser." makes a field Rust skips when absent required in TypeScript;
// - "In TypeScript: `T`." gives the TypeScript type outright.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(path.join(root, p), 'utf8');

// --- src/schema.json -------------------------------------------------------------------------

/** A doc as one line (the core keeps its lines). */
const oneLine = (d) => (d ?? '').replace(/\s+/g, ' ').trim();

/** Whether a value may be null (an `Option`): `T | null` as schemars writes it. */
const nullable = (s) => [s.type].flat().includes('null') || (s.anyOf ?? []).some((x) => x.type === 'null');

/**
 * The declaration's types as items, in its order: structs with their fields (`key` as written,
 * `optional` when skipped while empty) and enums with their values (`key`).
 */
export function itemsOf(decl) {
  return Object.entries(decl.types).map(([name, s]) => {
    const doc = oneLine(s.description);
    if (s.type !== 'object') {
      const values = s.enum ?? (s.oneOf ?? []).map((v) => v.const ?? v.enum?.[0]);
      if (!values.length || values.some((v) => typeof v !== 'string')) throw new Error(`src/schema.json: ${name} is neither a struct nor an enum of words`);
      return { kind: 'enum', name, doc, fields: values.map((key) => ({ key, doc: '' })) };
    }
    const required = new Set(s.required ?? []);
    const fields = Object.entries(s.properties ?? {}).map(([key, f]) => ({ key, schema: f, doc: oneLine(f.description), optional: !required.has(key), nullable: nullable(f) }));
    return { kind: 'struct', name, doc, fields };
  });
}

/** "One of `a`, `b` (why) or `c`": the literals at the top level of the clause, or null. */
export function literals(doc) {
  const at = doc.search(/\bone of `/i);
  if (at < 0) return null;
  const out = [];
  let depth = 0;
  for (let i = doc.indexOf('`', at); i < doc.length; i++) {
    const c = doc[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '`') {
      const end = doc.indexOf('`', i + 1);
      if (depth === 0) out.push(doc.slice(i + 1, end));
      i = end;
    } else if (depth === 0 && (c === '.' || c === ';' || c === ':') && (i + 1 === doc.length || doc[i + 1] === ' ')) break;
  }
  return out.length ? out : null;
}

const TS_NAMES = { Report: 'StreamReport', ErrorInfo: 'StreamErrorInfo' };
const tsName = (n) => TS_NAMES[n] || n;

/** The TypeScript type of a field's schema, given its doc (its literals, or its type outright). */
function tsType(schema, doc) {
  const given = /In TypeScript: `([^`]+)`/.exec(doc);
  return given ? given[1] : tsOf(schema, doc);
}

function tsOf(s, doc) {
  if (s.anyOf) return s.anyOf.map((x) => (x.type === 'null' ? 'null' : tsOf(x, doc))).join(' | ');
  if (s.$ref) return tsName(decodeURIComponent(s.$ref.split('/').pop()));
  const types = [s.type].flat();
  const t = types.find((x) => x !== 'null');
  let base;
  if (t === 'integer' || t === 'number') base = 'number';
  else if (t === 'boolean') base = 'boolean';
  else if (t === 'string') {
    const lit = literals(doc);
    base = lit ? lit.map((v) => `'${v}'`).join(' | ') : 'string';
  } else if (t === 'array' && s.prefixItems) base = `[${s.prefixItems.map((x) => tsOf(x, '')).join(', ')}]`;
  else if (t === 'array' && s.items) {
    const inner = tsOf(s.items, doc);
    base = /[|&]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
  } else if (t === 'object' && s.additionalProperties) base = `Record<string, ${tsOf(s.additionalProperties, '')}>`;
  else throw new Error(`src/schema.json: no TypeScript type for ${JSON.stringify(s)}`);
  return types.includes('null') ? `${base} | null` : base;
}

const NON_NULL = /Null only in a failed report\./;
const KEPT = /Kept in a failed report\./;
const ALWAYS = /Always there in the browser\./;
// Conventions and `In TypeScript` are for the generator; the d.ts doc comments drop the latter.
// Rust's words become JavaScript's: `None` is null, an intra-doc link is the name it links.
const tsDoc = (doc) =>
  doc
    .replace(/\s*In TypeScript: `[^`]+`\.?/, '')
    .replace(/\[`(?:\w+::)*(\w+)`\](?:\([^)]*\))?/g, '`$1`')
    .replace(/`None`/g, '`null`')
    .replace(/\s+/g, ' ')
    .trim();

function comment(doc, indent) {
  const d = tsDoc(doc).replace(/\*\//g, '*\\/');
  return d ? `${indent}/** ${d} */\n` : '';
}

/** js/report.d.ts */
export function reportTypes(items, metrics = null) {
  const byName = new Map(items.map((i) => [i.name, i]));
  let out = `// Generated by scripts/schema.mjs from src/schema.json (src/types.rs as the core declares it): do not edit
// (npm test fails when it is not current).
// Times are ms from the request start; null is unknown, never zero.

import type { Rating } from './index.js';
`;
  if (metrics) out += metricTypes(metrics);
  for (const item of items) {
    out += '\n' + comment(item.doc, '');
    if (item.kind === 'enum') {
      out += `export type ${tsName(item.name)} = ${item.fields.map((v) => `'${v.key}'`).join(' | ')};\n`;
      continue;
    }
    // A struct that holds all of another's fields as they are (serde's flatten: schemars merges
    // the group's fields into its holder) extends it, and declares only its own.
    const base = baseOf(item, items);
    out += `export interface ${tsName(item.name)}${base ? ` extends ${tsName(base.name)}` : ''} {\n`;
    for (const f of item.fields) {
      if (base?.fields.some((g) => g.key === f.key)) continue;
      let type = tsType(f.schema, f.doc);
      let optional = f.optional ? '?' : '';
      if (ALWAYS.test(f.doc)) {
        optional = '';
        if (!/In TypeScript:/.test(f.doc)) type = type.replace(/ \| null$/, '');
      }
      if (item.name === 'Report') {
        if (f.key === 'status') type = `Exclude<${type}, 'failed'>`;
        if (NON_NULL.test(f.doc)) type = type.replace(/ \| null$/, '');
      }
      out += comment(f.doc, '  ') + `  ${f.key}${optional}: ${type};\n`;
    }
    out += '}\n';
  }
  const report = byName.get('Report');
  const kept = report.fields.filter((f) => (!f.optional || ALWAYS.test(f.doc)) && !failedNull(f)).map((f) => f.key);
  out += `
/** tokenpaint itself failed during the stream (the app was unaffected): every figure is null. */
export type FailedReport = Pick<StreamReport, ${kept.filter((k) => k !== 'status' && k !== 'error').map((k) => `'${k}'`).join(' | ')}> & {
  status: 'failed';
  error: StreamErrorInfo;
} & { [K in FailedNull]: null };

/**
 * An answer grew on the page and no stream or socket seen carried it (\`error.kind: 'unread'\`,
 * \`read.by: 'none'\`): a report that says so, every figure null as in a failed report.
 */
export type UnreadReport = Omit<FailedReport, 'status'> & { status: 'incomplete' };

/** A report: a stream's, one of an answer no stream carried, or (when tokenpaint failed) one that says so. */
export type Report = StreamReport | UnreadReport | FailedReport;

/** The keys a failed report sets to null. */
export type FailedNull = ${failedKeys(report).map((k) => `'${k}'`).join(' | ')};
`;
  return out;
}

/**
 * The struct whose fields `item` holds, every one the same (key, schema with its doc, whether it
 * may be absent), if any: the largest of them, of at least two fields. A struct holds another's
 * so when serde flattens it; a shared key with another doc or type is no match.
 */
export function baseOf(item, items) {
  let best = null;
  for (const b of items) {
    if (b === item || b.kind !== 'struct' || b.fields.length < 2 || b.fields.length >= item.fields.length) continue;
    const same = (f) => item.fields.some((g) => g.key === f.key && g.optional === f.optional && isDeepStrictEqual(g.schema, f.schema));
    if (b.fields.every(same) && (!best || b.fields.length > best.fields.length)) best = b;
  }
  return best;
}

/** An Option field not kept, and not browser-only: null in a failed report. */
const failedNull = (f) => f.nullable && !f.optional && !KEPT.test(f.doc);
const failedKeys = (report) => report.fields.filter(failedNull).map((f) => f.key);

// --- constants of the core -------------------------------------------------------------------

function metricTypes({ summary, noSlo, rated }) {
  const union = (xs) => xs.map((x) => `'${x}'`).join(' | ');
  return `
/** A figure a summary aggregates over streams (the core's \`Metric\`, src/figures/catalog.rs). */
export type SummaryMetric = ${union(summary)};

/** A metric a target (SLO) can be set on: every summary metric but ${noSlo.map((n) => `\`${n}\``).join(', ')} (more is better there). */
export type SloMetric = ${noSlo.length ? `Exclude<SummaryMetric, ${union(noSlo)}>` : 'SummaryMetric'};

/** A metric with a rating (\`THRESHOLDS\`, src/figures/browser.rs). */
export type RatedMetric = ${union(rated)};
`;
}

/** js/schema.js */
export function schemaModule(items, th, hd) {
  const report = items.find((i) => i.name === 'Report');
  return `// Generated by scripts/schema.mjs from src/schema.json (src/types.rs, src/figures/browser.rs and
// src/read/mod.rs as the core declares them): do not edit (npm test fails when it is not current).

/** The keys a failed report sets to null (tokenpaint itself failed: nothing was measured). */
/** @type {import('./report.js').FailedNull[]} */
export const FAILED_NULL = ${JSON.stringify(failedKeys(report))};

/** The default rating thresholds: [good up to, poor above], in ms. */
export const THRESHOLDS = Object.freeze({
${th.map(([n, g, p]) => `  ${n}: [${g}, ${p}],`).join('\n')}
});

/** The response headers the core reads, as \`name: value\` lines; no other header leaves the page's objects. */
export const HEADERS = ${JSON.stringify(hd)};
`;
}

// --- docs/report.md --------------------------------------------------------------------------

const BEGIN = '<!-- schema:report: generated by scripts/schema.mjs from src/types.rs -->';
const END = '<!-- /schema:report -->';

/** The report table: one row per field of `Report`, its doc as the meaning. */
export function reportTable(items) {
  const report = items.find((i) => i.name === 'Report');
  const rows = report.fields.map((f) => `| \`${f.key}\` | ${tsDoc(f.doc).replace(/\|/g, '\\|')} |`);
  return `${BEGIN}\n| field | meaning |\n|---|---|\n${rows.join('\n')}\n${END}`;
}

function withTable(doc, table) {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < 0) throw new Error('docs/report.md: no schema:report markers');
  return doc.slice(0, a) + table + doc.slice(b + END.length);
}

// --- main ------------------------------------------------------------------------------------

export function generate() {
  const decl = JSON.parse(read('src/schema.json'));
  const items = itemsOf(decl);
  const th = decl.thresholds;
  const metrics = { summary: decl.metrics.summary, noSlo: decl.metrics.noTarget, rated: th.map(([n]) => n) };
  return {
    'js/report.d.ts': reportTypes(items, metrics),
    'js/schema.js': schemaModule(items, th, decl.headers),
    'docs/report.md': withTable(read('docs/report.md'), reportTable(items)),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [file, text] of Object.entries(generate())) {
    let now = null;
    try {
      now = read(file);
    } catch {
      /* not there yet */
    }
    if (now === text) continue;
    if (check) {
      console.error(`${file} is not current: run node scripts/schema.mjs`);
      stale++;
    } else {
      writeFileSync(path.join(root, file), text);
      console.log(`wrote ${file}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
