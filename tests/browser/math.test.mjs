// Issue 49: an answer that ends in a formula, drawn by the real KaTeX (from npm) as remark-math
// and rehype-katex draw it, the whole message rendered again with each delta. Before, the token
// that closed the last formula was never matched (its `$` was not markup and KaTeX's drawing
// replaced the text), so `e2ePerceived` was null. Now the formula is matched by the text around
// it: the answer's end is painted with the drawing, within a frame of the page's own last paint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, FRAME } from '../support/helpers.mjs';

let env;
let page;
before(async () => {
  env = await setup();
  page = await env.page('/tests/pages/math.html');
  await page.waitForFunction(() => window.mathReady === true);
});
after(() => env.close());

test('an answer that ends in a KaTeX formula: perceived E2E within a frame of the page\'s own last paint', async (t) => {
  for (let run = 0; run < 3; run++) {
    const { report: r, lastPaint, drawn } = await page.evaluate(() => window.runMath());
    t.diagnostic(`e2ePerceived ${r.e2ePerceived?.painted}, the page's last paint ${lastPaint.toFixed(1)}, ${drawn} formulas drawn, matched ${r.matchedPct}%, stalls ${r.stalls.count}`);
    assert.equal(drawn, 5);
    assert.equal(r.status, 'ok');
    assert.ok(r.e2ePerceived, 'the answer\'s end was painted');
    assert.ok(Math.abs(r.e2ePerceived.painted - lastPaint) <= FRAME, `e2ePerceived ${r.e2ePerceived.painted} vs the page's ${lastPaint}`);
    assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
  }
  assert.deepEqual(page.errors, []);
});
