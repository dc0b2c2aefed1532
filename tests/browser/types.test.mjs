// One definition of the Report and Summary types (issue 14): real reports of every status,
// taken from the core in Chromium, and a real summary, are written into a TypeScript file as
// literals typed by js/index.d.ts, and tsc --strict checks them. A field the core writes but the
// declarations lack is an excess property; a field the declarations have but no report of any
// status writes is a missing key of `Record<keyof StreamReport, true>`; a value of another kind
// is a type error. Any drift fails this test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { setup } from '../support/helpers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let env;
let page;
before(async () => {
  env = await setup();
  page = await env.page('/tests/pages/frontends.html');
  await page.waitForFunction(() => window.frontendsReady === true, null, { timeout: 15000 });
});
after(() => env.close());

/** tsc --strict on `source`, importing the repository's declarations; its output ('' when clean). */
export function typecheck(source) {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-types-'));
  writeFileSync(path.join(dir, 'reports.ts'), source);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'] }, files: ['reports.ts'] }),
  );
  try {
    return execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['--project', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' }).trim();
  } catch (e) {
    return (String(e.stdout) + String(e.stderr)).trim();
  }
}

export function source(reports, summary) {
  const keys = new Set();
  for (const r of reports) if (r.status !== 'failed') for (const k of Object.keys(r)) keys.add(k);
  const index = JSON.stringify(path.join(root, 'js', 'index.js'));
  return [
    `import type { Report, StreamReport, Summary } from ${index};`,
    ...reports.map((r, i) => `export const r${i}: Report = ${JSON.stringify(r)};`),
    `export const summary: Summary = ${JSON.stringify(summary)};`,
    // Every declared field is written by some report.
    `export const seen: Record<keyof StreamReport, true> = ${JSON.stringify(Object.fromEntries([...keys].map((k) => [k, true])))};`,
    '',
  ].join('\n');
}

test('reports of every status and the summary match index.d.ts exactly (tsc --strict)', async (t) => {
  const { reports, summary } = await page.evaluate(() => window.everyStatus());
  const statuses = reports.map((r) => `${r.status}${r.error ? `/${r.error.kind}` : ''}`);
  t.diagnostic(statuses.join(', '));
  for (const s of ['ok', 'error/http', 'aborted/aborted', 'incomplete/truncated', 'incomplete/empty-stream', 'failed/internal']) {
    assert.ok(statuses.includes(s), `a ${s} report (${statuses})`);
  }
  const out = typecheck(source(reports, summary));
  assert.equal(out, '', out);
});

test('the drift test fails when the core writes a field index.d.ts lacks', async () => {
  const { reports, summary } = await page.evaluate(() => window.everyStatus());
  const drifted = reports.map((r) => (r.status === 'ok' ? { ...r, newFigure: 1 } : r));
  assert.match(typecheck(source(drifted, summary)), /newFigure/);
  const missing = reports.map(({ ttfc, ...r }) => r);
  assert.match(typecheck(source(missing, summary)), /ttfc/);
});

test("the docs' report table (docs/report.md) names exactly the fields reports have", async () => {
  const { reports } = await page.evaluate(() => window.everyStatus());
  const keys = new Set();
  for (const r of reports) if (r.status !== 'failed') for (const k of Object.keys(r)) keys.add(k);
  const doc = readFileSync(path.join(root, 'docs', 'report.md'), 'utf8');
  const table = doc.slice(doc.indexOf('## Reading a report'), doc.indexOf('How to read it:'));
  const named = new Set();
  for (const line of table.split('\n')) {
    if (line.startsWith('| `')) for (const m of line.split('|')[1].matchAll(/`(\w+)`/g)) named.add(m[1]);
  }
  assert.deepEqual([...keys].filter((k) => !named.has(k)), [], 'report fields the table lacks');
  assert.deepEqual([...named].filter((k) => !keys.has(k)), [], 'table names that no report has');
});

// Issue 59: `SummaryMetric` was a hand-written union that lacked `freeze`, `droppedFrames` and
// `inputDuration`, on which the core takes targets. Every metric a summary has (each one's
// percentiles) is given a target here; the targets the core judged, and the options that set
// them, must type.
test('a target on every metric the core judges types as the generated SloMetric (tsc --strict)', async (t) => {
  const { summary, options } = await page.evaluate(async () => {
    const { summary: first } = await window.everyStatus();
    const metrics = Object.keys(first).filter((k) => first[k] && typeof first[k] === 'object' && 'p50' in first[k]);
    const slo = Object.fromEntries(metrics.map((m) => [m, { p95: 1e9 }]));
    const { summary } = await window.everyStatus({ slo });
    // The options that set the targets the core judged (it takes none on a frame rate).
    return { summary, options: { slo: Object.fromEntries(summary.slo.map((s) => [s.metric, { p95: 1e9 }])) } };
  });
  t.diagnostic(`targets judged: ${summary?.slo?.map((s) => s.metric).join(', ')}`);
  assert.ok(summary.slo.some((s) => s.metric === 'freeze') && summary.slo.some((s) => s.metric === 'inputDuration'), JSON.stringify(summary.slo));
  assert.ok(!summary.slo.some((s) => s.metric === 'fps'));
  const index = JSON.stringify(path.join(root, 'js', 'index.js'));
  const src = [
    `import type { Summary, ProfilerOptions } from ${index};`,
    `export const summary: Summary = ${JSON.stringify(summary)};`,
    `export const options: ProfilerOptions = ${JSON.stringify(options)};`,
    '// @ts-expect-error: a frame rate takes no target (more is better)',
    `export const fps: ProfilerOptions = { slo: { fps: { p50: 50 } } };`,
    '',
  ].join('\n');
  const out = typecheck(src);
  assert.equal(out, '', out);
});
