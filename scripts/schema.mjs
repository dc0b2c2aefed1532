// The report's one definition is `src/types.rs` (the Rust types with their docs); the rest of
// what repeats its shape is generated from it here, on the host:
//
// - `js/report.d.ts`: the TypeScript types of reports, summaries and progress, and the metric
//   unions (`SummaryMetric`, `SloMetric`, `RatedMetric`) from the core's own lists;
// - `js/schema.js`: the keys a failed report sets to null, the default rating thresholds
//   (`THRESHOLDS` in `src/figures/browser.rs`) and the response headers the core reads
//   (`HEADERS` in `src/read/mod.rs`);
// - the report table of `docs/report.md` (between its `schema:report` markers).
//
// `node scripts/schema.mjs` rewrites them; `--check` fails, naming the file, when one is not
// current (`tests/repo/schema.test.mjs` runs it in `npm test`). Conventions read from the docs:
// - "One of `a`, `b` or `c`" (values in parentheses are explanations) makes a string a union of
//   those literals;
// - "Null only in a failed report." makes an `Option` non-null in a stream's report;
// - "Kept in a failed report." keeps an `Option` field in a failed report (else it is null);
// - "Always there in the browser." makes a field Rust skips when absent required in TypeScript;
// - "In TypeScript: `T`." gives the TypeScript type outright.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(path.join(root, p), 'utf8');

// --- src/types.rs ----------------------------------------------------------------------------

/** Structs and enums of a rustfmt-formatted Rust file, in order, with docs and serde attributes. */
export function parseTypes(src) {
  const items = [];
  const lines = src.split('\n');
  let docs = [];
  let attrs = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('///')) {
      docs.push(line.slice(3).replace(/^ /, ''));
      continue;
    }
    if (line.startsWith('#[')) {
      attrs.push(line);
      continue;
    }
    const head = /^pub (struct|enum) (\w+) \{$/.exec(line);
    if (!head) {
      docs = [];
      attrs = [];
      continue;
    }
    const item = { kind: head[1], name: head[2], doc: docs.join(' '), serde: serdeOf(attrs), fields: [] };
    docs = [];
    attrs = [];
    let fdocs = [];
    let fattrs = [];
    for (i++; lines[i] !== '}'; i++) {
      const l = lines[i].trim();
      if (l.startsWith('///')) fdocs.push(l.slice(3).replace(/^ /, ''));
      else if (l.startsWith('#[')) fattrs.push(l);
      else if (item.kind === 'struct' && l.startsWith('pub ')) {
        const m = /^pub (\w+): (.*),$/.exec(l);
        if (!m) throw new Error(`types.rs: cannot read the field "${l}" of ${item.name}`);
        item.fields.push({ rust: m[1], type: m[2], doc: fdocs.join(' '), serde: serdeOf(fattrs) });
        fdocs = [];
        fattrs = [];
      } else if (item.kind === 'enum' && /^\w+,$/.test(l)) {
        item.fields.push({ rust: l.slice(0, -1), doc: fdocs.join(' '), serde: serdeOf(fattrs) });
        fdocs = [];
        fattrs = [];
      }
    }
    items.push(item);
  }
  return items;
}

function serdeOf(attrs) {
  const s = {};
  for (const a of attrs) {
    const m = /^#\[serde\((.*)\)\]$/.exec(a);
    if (!m) continue;
    for (const part of m[1].split(/,\s*/)) {
      const kv = /^(\w+)(?: = "(.*)")?$/.exec(part.trim());
      if (kv) s[kv[1]] = kv[2] ?? true;
    }
  }
  return s;
}

const camel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const renamed = (name, rule) => (rule === 'camelCase' ? camel(name) : rule === 'lowercase' ? name.toLowerCase() : rule === 'kebab-case' ? name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase() : name);
/** The JSON key of a field (or the string of an enum variant). */
const keyOf = (item, f) => f.serde.rename ?? renamed(f.rust, item.serde.rename_all);

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

/** The TypeScript type of a Rust type (`nullable`: an Option is `T | null`). */
function tsType(rust, doc, items) {
  const given = /In TypeScript: `([^`]+)`/.exec(doc);
  if (given) return given[1];
  const t = rust.trim();
  let m;
  if ((m = /^Option<(.*)>$/.exec(t))) return `${tsType(m[1], doc, items)} | null`;
  if ((m = /^Vec<(.*)>$/.exec(t))) {
    const inner = tsType(m[1], doc, items);
    return /[|&]/.test(inner) ? `(${inner})[]` : `${inner}[]`;
  }
  if ((m = /^BTreeMap<String, (.*)>$/.exec(t))) return `Record<string, ${tsType(m[1], '', items)}>`;
  if ((m = /^\((.*)\)$/.exec(t))) return `[${m[1].split(',').map((x) => tsType(x, '', items)).join(', ')}]`;
  if (/^(f64|f32|u64|u32|u16|u8|i64|i32|usize)$/.test(t)) return 'number';
  if (t === 'bool') return 'boolean';
  if (t === 'String') {
    const lit = literals(doc);
    return lit ? lit.map((v) => `'${v}'`).join(' | ') : 'string';
  }
  if (items.has(t)) return tsName(t);
  throw new Error(`types.rs: no TypeScript type for ${t}`);
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
  let out = `// Generated by scripts/schema.mjs from src/types.rs: do not edit (npm test fails when it is not current).
// Times are ms from the request start; null is unknown, never zero.

import type { Rating } from './index.js';
`;
  if (metrics) out += metricTypes(metrics);
  for (const item of items) {
    out += '\n' + comment(item.doc, '');
    if (item.kind === 'enum') {
      out += `export type ${tsName(item.name)} = ${item.fields.map((v) => `'${keyOf(item, v)}'`).join(' | ')};\n`;
      continue;
    }
    const flat = item.fields.filter((f) => f.serde.flatten);
    const ext = flat.length ? ` extends ${flat.map((f) => tsName(f.type)).join(', ')}` : '';
    out += `export interface ${tsName(item.name)}${ext} {\n`;
    for (const f of item.fields) {
      if (f.serde.flatten) continue;
      let type = tsType(f.type, f.doc, byName);
      let optional = f.serde.skip_serializing_if ? '?' : '';
      if (ALWAYS.test(f.doc)) {
        optional = '';
        if (!/In TypeScript:/.test(f.doc)) type = type.replace(/ \| null$/, '');
      }
      if (item.name === 'Report') {
        if (f.rust === 'status') type = `Exclude<${type}, 'failed'>`;
        if (NON_NULL.test(f.doc)) type = type.replace(/ \| null$/, '');
      }
      out += comment(f.doc, '  ') + `  ${keyOf(item, f)}${optional}: ${type};\n`;
    }
    out += '}\n';
  }
  const report = byName.get('Report');
  const kept = report.fields.filter((f) => (!f.serde.skip_serializing_if || ALWAYS.test(f.doc)) && !failedNull(f)).map((f) => keyOf(report, f));
  out += `
/** tokenpaint itself failed during the stream (the app was unaffected): every figure is null. */
export type FailedReport = Pick<StreamReport, ${kept.filter((k) => k !== 'status' && k !== 'error').map((k) => `'${k}'`).join(' | ')}> & {
  status: 'failed';
  error: StreamErrorInfo;
} & { [K in FailedNull]: null };

/** A report: a stream's, or (when tokenpaint failed) one that says so. */
export type Report = StreamReport | FailedReport;

/** The keys a failed report sets to null. */
export type FailedNull = ${failedKeys(report).map((k) => `'${k}'`).join(' | ')};
`;
  return out;
}

/** An Option field not kept, and not browser-only: null in a failed report. */
const failedNull = (f) => /^Option</.test(f.type) && !f.serde.skip_serializing_if && !KEPT.test(f.doc);
const failedKeys = (report) => report.fields.filter(failedNull).map((f) => keyOf(report, f));

// --- constants of the core -------------------------------------------------------------------

/** `pub const NAME: [(&str, f64, f64); N] = [("a", 1.0, 2.0), …];` */
export function thresholds(src) {
  const m = /pub const THRESHOLDS: \[\(&str, f64, f64\); \d+\] = \[([\s\S]*?)\];/.exec(src);
  if (!m) throw new Error('src/figures/browser.rs: no THRESHOLDS');
  return [...m[1].matchAll(/\("(\w+)",\s*([\d.]+),\s*([\d.]+)\)/g)].map((x) => [x[1], Number(x[2]), Number(x[3])]);
}

/**
 * The metric names of the core: a summary's (`Metric::name` in src/figures/catalog.rs), those a
 * target cannot be set on (`parse_slos`'s filter in src/summary.rs) and the rated ones
 * (`THRESHOLDS`).
 */
export function metricNames(catalog, summary, th) {
  const body = /impl Metric \{[\s\S]*?pub fn name\(self\) -> &'static str \{([\s\S]*?)\n {4}\}/.exec(catalog);
  if (!body) throw new Error('src/figures/catalog.rs: no Metric::name');
  const names = new Map([...body[1].matchAll(/Metric::(\w+) => "(\w+)"/g)].map((x) => [x[1], x[2]]));
  if (!names.size) throw new Error('src/figures/catalog.rs: no metric names');
  const noSlo = [...summary.matchAll(/m != Metric::(\w+)/g)].map((x) => names.get(x[1]));
  if (noSlo.some((n) => !n)) throw new Error('src/summary.rs: a metric parse_slos leaves out is not a Metric');
  return { summary: [...names.values()], noSlo, rated: th.map(([n]) => n) };
}

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

/** `pub const HEADERS: [&str; N] = ["a", …];` */
export function headers(src) {
  const m = /pub const HEADERS: \[&str; \d+\] = \[([\s\S]*?)\];/.exec(src);
  if (!m) throw new Error('src/read/mod.rs: no HEADERS');
  return [...m[1].matchAll(/"([\w-]+)"/g)].map((x) => x[1]);
}

/** js/schema.js */
export function schemaModule(items, th, hd) {
  const report = items.find((i) => i.name === 'Report');
  return `// Generated by scripts/schema.mjs from src/types.rs, src/figures/browser.rs and
// src/read/mod.rs: do not edit (npm test fails when it is not current).

/** The keys a failed report sets to null (tokenpaint itself failed: nothing was measured). */
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
  const rows = report.fields.map((f) => `| \`${keyOf(report, f)}\` | ${tsDoc(f.doc).replace(/\|/g, '\\|')} |`);
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
  const items = parseTypes(read('src/types.rs'));
  const th = thresholds(read('src/figures/browser.rs'));
  const metrics = metricNames(read('src/figures/catalog.rs'), read('src/summary.rs'), th);
  return {
    'js/report.d.ts': reportTypes(items, metrics),
    'js/schema.js': schemaModule(items, th, headers(read('src/read/mod.rs'))),
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
