// The README's screenshot of the lab's report viewer: a saved export (two answers, one on a
// shared server with a slow decode step) opened from a file: docs/viewer.png.
//   node scripts/screenshot-viewer.mjs
import { readFileSync } from 'node:fs';
import { setup } from '../tests/support/helpers.mjs';

const env = await setup();
try {
  const page = await env.page('/');
  await page.waitForFunction(() => !!window.tokenpaintProfiler);
  for (const name of ['healthy', 'sharedServer']) {
    const n = await page.evaluate(() => window.tokenpaintProfiler.reports().length);
    await page.click(`button[data-name="${name}"]`);
    await page.click('#send');
    await page.waitForFunction((k) => window.tokenpaintProfiler.reports().length > k, n, { timeout: 30000 });
  }
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const file = { name: 'tokenpaint-reports.json', mimeType: 'application/json', buffer: readFileSync(await download.path()) };
  const view = await env.browser.newPage({ viewport: { width: 1280, height: 1400 } });
  await view.goto(`${env.url}/`);
  await view.setInputFiles('#open', file);
  await view.waitForFunction(() => document.getElementById('report').dataset.source === 'file');
  await view.waitForTimeout(300);
  await view.locator('#report').screenshot({ path: 'docs/viewer.png' });
} finally {
  await env.close();
}
