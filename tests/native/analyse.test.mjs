// tokenpaint/analyse in Node (issue 50: a saved timeline analysed again gives the live report):
// the page's core (pkg/), called as the shell calls it, saves a stream's timeline in its report;
// the analysis module (pkg/analyse/), loaded by js/analyse.js from disk as a Node user loads it,
// analyses it again. The report, assembled by the shell's own code (js/core/assemble.js) with
// what the page told, is the live one, and the summaries agree. A real page's streams, saved and
// analysed again, are in tests/browser/saved.test.mjs.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { load, createCore, call } from '../../js/core/wasm.js';
import * as calls from '../../js/core/calls.js';
import { assembleFigures, assembleRead } from '../../js/core/assemble.js';
import { createAnalyst, analyse } from '../../js/analyse.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let core = null;

before(async () => {
  await load(readFileSync(path.join(root, 'pkg/tokenpaint_core_bg.wasm')));
  core = createCore();
  call(core, (c) => c.configure('paint=1\nlongFrames=1\nlate=40\nsampleRate=0.5\nslo=ttftPerceived 0.95 1000'));
});

const sse = (deltas) => new TextEncoder().encode(deltas.map((d) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: d } }] })}\n\n`).join(''));

/** A stream of `n` words, every `step` ms, rendered `lag` ms after each arrives; its report with `saved`. */
function stream(t0, n, step, lag) {
  const id = call(core, (c) => calls.open(c, { format: 'auto', contentType: 'text/event-stream', headers: 'server: nginx', url: '/v1/chat/completions', start: t0, headersAt: t0 + 30, httpStatus: 200, label: 'chat', transport: 'fetch', priorChars: 120 }), 0);
  let shown = '';
  for (let i = 0; i < n; i++) {
    const t = t0 + 80 + i * step;
    const w = ` word${i}`;
    call(core, (c) => c.chunk(id, sse([w]), t, false, NaN));
    shown += w;
    call(core, (c) => c.render(id, shown, 0, t + lag), 0);
    if (i % 7 === 3) call(core, (c) => c.long_frame(i, t, 80, 30));
    call(core, (c) => calls.painted(c, { frame: t + lag + 2, cutoff: NaN, after: t + lag + 6, since: t + lag - 12 }));
  }
  call(core, (c) => c.chunk(id, new TextEncoder().encode('data: [DONE]\n\n'), t0 + 90 + n * step, false, NaN));
  call(core, (c) => c.end(id, 0, t0 + 91 + n * step, ''));
  const report = JSON.parse(call(core, (c) => c.finish(id, true, true), ''));
  // The shell's assembly, with what a page told.
  const page = { sampleRate: 0.5, scripts: [{ seq: 3, scripts: [{ invoker: 'x', invokerType: 'event-listener', sourceURL: 'https://app.example/main.js', sourceFunctionName: 'render', duration: 70 }] }], longFrames: true, ownRoot: 'https://app.example/tp/', entry: null, element: { selector: 'div.msg', how: 'observed' }, read: null };
  assembleFigures(report, page);
  assembleRead(report, page);
  report.saved.page = page;
  return report;
}

test("a saved timeline analysed again in Node gives the live report, and the summaries agree", async () => {
  const analyst = await createAnalyst({ slo: { ttftPerceived: { p95: 1000 } }, sampleRate: 0.5 });
  const other = await createAnalyst({ sampleRate: 0.5 });
  const reports = [stream(1000, 40, 20, 8), stream(5000, 60, 15, 90), stream(9000, 3, 30, 400)];
  for (const live of reports) {
    const { saved, ...expected } = live;
    assert.equal(saved.tokenpaint, 'timeline');
    assert.equal(saved.version, 1);
    const { report, error } = analyst.analyse(live);
    assert.equal(error, null);
    assert.deepEqual(report, expected);
    // The saved object alone, and its JSON, read the same.
    assert.deepEqual(other.analyse(JSON.stringify(saved)).report, expected);
  }
  // The summary of the streams analysed again is the live core's, figure for figure.
  const live = JSON.parse(call(core, (c) => c.summary(), ''));
  assert.equal(live.count, 3);
  assert.deepEqual(analyst.summary(), live);
  // And it merges as a profiler's does.
  assert.ok(other.mergeSummary(analyst.exportSummary()));
  assert.equal(other.summary().count, 6);
  // A verdict that names a script names the page's, from the scripts the page kept.
  const render = reports.flatMap((r) => r.diagnosis).find((v) => 'script' in v);
  if (render) assert.equal(render.script?.url ?? null, render.script === null ? null : 'https://app.example/main.js');
  analyst.close();
  other.close();
});

test('what is not a saved timeline gives a typed error, never a report', async () => {
  const cases = [
    ['not json', 'saved-timeline-malformed'],
    [{ id: 1, diagnosis: [] }, 'not-a-saved-timeline'],
    [{ tokenpaint: 'timeline', version: 99, stream: {} }, 'saved-timeline-newer-version'],
    [{ tokenpaint: 'timeline', version: 1, stream: { records: [[1, 2]] } }, 'saved-timeline-malformed'],
    [null, 'not-a-saved-timeline'],
    [42, 'not-a-saved-timeline'],
  ];
  for (const [input, code] of cases) {
    const r = await analyse(input);
    assert.deepEqual(r, { report: null, error: code }, JSON.stringify(input));
  }
});
