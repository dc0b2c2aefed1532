// The CI budget of a chat page, in ten lines: perceived TTFT, lag and no slow-render verdict.
// RENDER=markdown (the whole message re-rendered per delta) makes it fail, naming the fix.
import { test, expect as base } from '@playwright/test';
import { attach, budgets } from 'tokenpaint/playwright';

const expect = base.extend(budgets);

test('the streamed answer feels fast', async ({ page }, testInfo) => {
  const tp = await attach(page, { testInfo });
  await page.goto(`/examples/playwright/app/index.html?render=${process.env.RENDER || 'append'}`);
  await page.click('#send');
  expect(await tp.next()).toMeetBudget({ ttftPerceived: 800, lagP95: 50, forbid: ['client-render-bound', 'client-render-growing'] });
});
