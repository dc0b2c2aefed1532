// The CI budget of a chat page, in ten lines: perceived TTFT, lag and no slow-render verdict. The
// lag budget (p95 ≤ 250 ms) leaves a loaded CI machine room, and is still far below the 3 s a
// whole-message re-render gives.
// RENDER=markdown (the whole message re-rendered per delta) makes it fail, naming the fix.
import { test, expect as base } from '@playwright/test';
import { attach, budgets } from 'tokenpaint/playwright';

const expect = base.extend(budgets);

test('the streamed answer feels fast', async ({ page }, testInfo) => {
  const tp = await attach(page, { testInfo });
  await page.goto(`/examples/playwright/app/index.html?render=${process.env.RENDER || 'append'}`);
  await page.click('#send');
  expect(await tp.next()).toMeetBudget({ ttftPerceived: 800, lagP95: 250, forbid: ['client-render-bound', 'client-render-growing'] });
});
