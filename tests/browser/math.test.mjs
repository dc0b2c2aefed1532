// Issue 49: an answer that ends in a formula, drawn by the real KaTeX (from npm) as remark-math
// and rehype-katex draw it, the whole message rendered again with each delta. Before, the token
// that closed the last formula was never matched (its `$` was not markup and KaTeX's drawing
// replaced the text), so `e2ePerceived` was null. Now the formula is matched by the text around
// it: the answer's end is painted with the drawing, in the frame the page saw paint it. The page's
// own truth is a bracket: its rAF callback in that frame (the paint follows it) and a task it
// posted from there (the paint precedes it). On a loaded machine that task can run tens of ms
// after the paint (a fresh run: 20.4 ms after tokenpaint's own mark), so the bracket, not the
// task alone, is the truth: tokenpaint's after-paint mark must not precede the page's frame, nor
// follow the page's mark by more than a frame.
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

test('an answer that ends in a KaTeX formula: perceived E2E in the frame that painted the page\'s last change', async (t) => {
  for (let run = 0; run < 3; run++) {
    const { report: r, lastPaint, lastFrame, drawn } = await page.evaluate(() => window.runMath());
    t.diagnostic(`e2ePerceived ${r.e2ePerceived?.frame}-${r.e2ePerceived?.painted}, the page's last frame ${lastFrame.toFixed(1)} and paint ${lastPaint.toFixed(1)}, ${drawn} formulas drawn, matched ${r.matchedPct}%, stalls ${r.stalls.count}`);
    assert.equal(drawn, 5);
    assert.equal(r.status, 'ok');
    assert.ok(r.e2ePerceived, 'the answer\'s end was painted');
    // 0.1 ms: the report rounds to a tenth.
    const { painted } = r.e2ePerceived;
    assert.ok(painted >= lastFrame - 0.1 && painted <= lastPaint + FRAME, `e2ePerceived ${painted} vs the page's frame ${lastFrame} and mark ${lastPaint}`);
    assert.ok(r.matchedPct >= 99, `matched ${r.matchedPct}`);
  }
  assert.deepEqual(page.errors, []);
});
