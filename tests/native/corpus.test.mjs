// The corpus (issue 59): real sessions recorded once (scripts/record-cases.mjs), each a saved
// timeline with the truth of the same run beside it, analysed again natively by this build in
// every `npm test`. A change that moves a figure fails here in seconds. Each check is held to the
// truth the case recorded, with the tolerance that truth allows:
// - the named verdict (the scenario's failure mode), first;
// - the server's own decode and prefill (what it sent), within 2%, where it reported them, and
//   its wait for a slot (its log) within 5% or 30 ms;
// - phases that add up: where the server's timings and the page's paints are both known,
//   `unattributed` at most one frame or 2% of E2E, whichever is larger;
// - perceived E2E not before the page's own last change, and within a frame and 2% of the paint
//   after it;
// - a fix's estimated gain within 15% of the fixed twin's own paint, where one was recorded;
// - no gain, note or evidence of a verdict whose figures are all zero.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createAnalyst } from '../../js/analyse.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = path.join(root, 'tests', 'corpus');
export const FRAME = 1000 / 60;
// The page's after-paint mark and the frame's paint differ by the mark's task (tests/support/replay.mjs).
const SLACK = 10;
export const CASES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(path.join(DIR, f), 'utf8')));

let analyst;
before(async () => {
  analyst = await createAnalyst();
});

const phase = (r, name) => r.phases.find((p) => p.name === name)?.ms ?? null;
const within = (v, truth, frac) => v != null && Math.abs(v - truth) <= Math.abs(truth) * frac + 0.05;

/** The server's own decode and prefill, as its stream carried them (vLLM-style or llama.cpp). */
export function serverFigures(s = {}) {
  if (s.timings) return { prefill: s.timings.prompt_ms, decode: s.timings.predicted_ms };
  const m = s.metrics;
  if (!m) return {};
  return { queue: m.queue_time_ms, prefill: m.time_to_first_token_ms, decode: m.generation_time_ms };
}

/** Every check of a case; each returns a message for what does not hold. */
export function check(c, report) {
  const bad = [];
  const r = report;
  const verdicts = r.diagnosis.map((v) => v.verdict);
  if (c.expect?.verdict && verdicts[0] !== c.expect.verdict) bad.push(`verdict ${verdicts.join(', ')}, expected ${c.expect.verdict}`);
  if (c.expect?.oneOf && !c.expect.oneOf.includes(verdicts[0])) bad.push(`verdict ${verdicts.join(', ')}, expected one of ${c.expect.oneOf}`);
  const server = serverFigures(c.truth?.server);
  for (const name of ['decode', 'prefill']) {
    const want = server[name];
    if (want == null || c.expect?.[`${name}Unchecked`]) continue;
    const got = phase(r, name);
    if (!within(got, want, 0.02)) bad.push(`${name} ${got} against the server's ${want}`);
  }
  // The server's own wait for a slot (its log), where it queued the request.
  const wait = c.truth?.server?.wait;
  if (wait != null && c.expect?.verdict === 'queue-bound') {
    const q = phase(r, 'queue');
    if (!(q != null && Math.abs(q - wait) <= Math.max(0.05 * wait, 30))) bad.push(`queue ${q} against the server's wait ${wait}`);
    if (!(phase(r, 'network') <= 30)) bad.push(`network ${phase(r, 'network')} on localhost`);
  } else if (wait != null && wait < 30 && !(phase(r, 'queue') <= 50)) bad.push(`queue ${phase(r, 'queue')} alone`);
  const total = r.phasesTotal;
  const e2eP = r.e2ePerceived?.painted ?? null;
  const painted = e2eP != null;
  if (total && r.phases) {
    const known = r.phases.reduce((a, x) => a + (x.ms ?? 0), 0);
    if (r.phases.some((x) => x.ms != null && x.ms < 0)) bad.push(`a negative phase: ${JSON.stringify(r.phases)}`);
    if (known > total.ms + 1) bad.push(`the phases add up to ${known.toFixed(2)}, over the total ${total.ms}`);
  }
  if (server.decode != null && painted && total) {
    const bound = Math.max(FRAME, 0.02 * total.ms);
    if (total.unattributed > bound) bad.push(`unattributed ${total.unattributed} of ${total.ms} (bound ${bound.toFixed(1)})`);
  }
  const p = c.truth?.page;
  if (p?.lastPaint != null && painted && c.expect?.e2ePerceived !== false) {
    if (e2eP < p.lastChange - 1) bad.push(`e2ePerceived ${e2eP} before the page's last change ${p.lastChange}`);
    if (e2eP > p.lastPaint + FRAME + 0.02 * p.lastPaint) bad.push(`e2ePerceived ${e2eP} after the page's paint ${p.lastPaint} + a frame`);
  }
  // The fix's gain against the fixed twin's own last paint, measured in the same page.
  const twin = c.truth?.twin;
  if (twin?.lastPaint != null && p?.lastPaint != null) {
    const gain = r.diagnosis.find((v) => v.gain)?.gain;
    const predicted = p.lastPaint - (gain?.e2ePerceived ?? NaN);
    if (!(Math.abs(predicted - twin.lastPaint) <= 0.15 * twin.lastPaint)) bad.push(`predicted perceived E2E ${predicted} (gain ${JSON.stringify(gain)}) against the twin's ${twin.lastPaint}`);
  }
  for (const v of c.expect?.notVerdicts ?? []) if (verdicts.includes(v)) bad.push(`${v} on a direct, steady stream`);
  // A replayed app's page: its own first text and the paint after it, and its lag (truth.mjs).
  if (p?.firstPaint != null) {
    const perceived = r.ttftPerceived?.painted;
    if (!(perceived >= p.firstText - SLACK && perceived <= p.firstPaint + 2 * FRAME + SLACK)) bad.push(`perceived TTFT ${perceived} against the page's first text ${p.firstText} and its paint ${p.firstPaint}`);
    if (!(Math.abs(r.lag?.p50 - p.lagP50) <= 2 * FRAME + SLACK)) bad.push(`lag p50 ${r.lag?.p50} against the page's ${p.lagP50}`);
  }
  for (const v of r.diagnosis) {
    const nums = Object.values(v.evidence ?? {}).filter((x) => typeof x === 'number');
    // (What insufficient evidence counts is what is missing: its zeros are the evidence.)
    if (nums.length && nums.every((x) => x === 0) && v.verdict !== 'insufficient-evidence') bad.push(`${v.verdict}: its evidence is all zeros`);
    if (/\b0\.0 ms\b.*\b0\.0 ms\b/.test(v.summary ?? '')) bad.push(`${v.verdict}: "${v.summary}"`);
  }
  return bad;
}

test(`the corpus holds at least 30 recorded cases, each saying what produced it`, () => {
  assert.ok(CASES.length >= 30, `${CASES.length} cases`);
  for (const c of CASES) {
    assert.ok(c.case && c.produced?.command && c.produced?.date && c.produced?.tokenpaint, `${c.case}: what produced it`);
    assert.equal(c.saved?.tokenpaint, 'timeline', c.case);
  }
});

for (const c of CASES) {
  test(`corpus ${c.case}: ${c.about}`, () => {
    const { report, error } = analyst.analyse(c.saved);
    assert.ok(!error, JSON.stringify(error));
    const bad = check(c, report);
    assert.deepEqual(bad, [], `${c.case}: ${bad.join('; ')}`);
  });
}
