// tokenpaint/playwright's budgets (js/playwright.js `checkBudget`), on reports' figures: the
// smoothness budgets of issue 49 (the longest freeze, the user's longest interaction), and an
// unknown figure failing its budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkBudget } from '../../js/playwright.js';

const report = (over = {}) => ({ matchedPct: 100, diagnosis: [], unavailable: [], stalls: { threshold: 100, count: 0, totalMs: 0, longest: null, list: [] }, input: null, ...over });

test('the longest freeze: none is 0, a freeze over the budget fails, an unread page is unknown', () => {
  assert.deepEqual(checkBudget(report(), { freeze: 500 }).failures, []);
  const frozen = report({ stalls: { threshold: 100, count: 1, totalMs: 900, longest: 900, list: [[100, 1000]] } });
  assert.deepEqual(checkBudget(frozen, { freeze: 500 }).failures, ['longest freeze 900 ms > 500 ms']);
  assert.deepEqual(checkBudget(report({ stalls: null }), { freeze: 500 }).failures, ['longest freeze unknown (budget 500 ms)']);
});

test('the longest interaction: none is 0, a slow one fails, without Event Timing it is unknown', () => {
  assert.equal(checkBudget(report(), { inputDuration: 200 }).pass, true);
  const slow = report({ input: { count: 3, delayMaxMs: 400, durationP50Ms: 120, durationMaxMs: 448, worstAtMs: 500 } });
  assert.deepEqual(checkBudget(slow, { inputDuration: 200 }).failures, ['longest interaction 448 ms > 200 ms']);
  const webkit = report({ unavailable: ['event-timing'] });
  assert.deepEqual(checkBudget(webkit, { inputDuration: 200 }).failures, ['longest interaction unknown (budget 200 ms)']);
});

test('matched: an unknown share fails whatever the bound, 0 included', () => {
  assert.deepEqual(checkBudget(report({ matchedPct: 40 }), { matched: 50 }).failures, ['matched 40% < 50%']);
  assert.equal(checkBudget(report({ matchedPct: 40 }), { matched: 0 }).pass, true);
  // `null >= 0` is true in JavaScript: an unread page passed a `matched: 0` budget.
  assert.deepEqual(checkBudget(report({ matchedPct: null }), { matched: 0 }).failures, ['matched unknown% < 0%']);
});
