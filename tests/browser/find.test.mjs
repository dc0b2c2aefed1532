// observe() with no element, as a property (issue 34): on random chat pages (tests/pages/find.js:
// earlier turns, some with the same answer; labels, toolbars, a prompt field that may hold the
// answer's first words and change while it streams; oldest- or newest-first; four ways of
// rendering), the element claimed holds the whole new answer, is matched, and is never the
// question, the prompt field or an earlier answer, nor holds one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup } from '../support/helpers.mjs';

let env;
before(async () => (env = await setup()));
after(() => env.close());

const CASES = Number(process.env.FIND_CASES) || 32;

test(`the claimed element, over ${CASES} random chat pages: the answer, never the question, the prompt or an earlier answer`, async (t) => {
  const page = await env.page('/tests/pages/find.html');
  await page.waitForFunction(() => window.findReady === true);
  const base = Number(process.env.FIND_SEED) || 1;
  const bad = [];
  for (let seed = base; seed < base + CASES; seed++) {
    const c = await page.evaluate((s) => window.claimCase(s), seed);
    const ok = !c.error && c.how === 'document' && c.unique && c.holdsAnswer && c.matched >= 99 && !c.holdsQuestion && !c.holdsPrompt && !c.holdsEarlier;
    if (!ok) bad.push(c);
  }
  t.diagnostic(`${CASES - bad.length} of ${CASES} held`);
  assert.deepEqual(bad, []);
  assert.deepEqual(page.errors, []);
  await page.close();
});
