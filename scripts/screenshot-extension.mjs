// The README's screenshot of the extension's overlay on a third-party chat page (deep-chat, its
// whole UI in a shadow root, with no tokenpaint in the page): docs/extension-overlay.png.
//   node scripts/screenshot-extension.mjs
import { setupExtension } from '../tests/support/extension.mjs';
import { buildApp } from '../tests/apps/build.mjs';

await buildApp('bare-deepchat');
const env = await setupExtension();
try {
  const page = await env.page('/tests/pages/bare-deepchat-app/index.html');
  await page.setViewportSize({ width: 900, height: 560 });
  await env.turnOn(page);
  await page.waitForFunction(() => window.appReady === true);
  await page.evaluate(() => window.send('content=markdown&ttft_ms=300&token_ms=20&tokens=80&stall_at=30&stall_ms=600'));
  await env.reports(page, 1);
  await page.waitForTimeout(300);
  await page.screenshot({ path: 'docs/extension-overlay.png' });
} finally {
  await env.close();
}
