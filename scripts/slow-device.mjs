// The lab's slow device (issue 49): a page cannot slow its own CPU, so the demo server runs the
// lab's scenario in a headless Chromium under the DevTools CPU throttle (as Chrome's DevTools and
// tokenpaint/playwright's `cpuThrottle` do) and hands back the lab's own report of it.
// POST /lab/slow { scenario, transport, rate } → { report, rate }, or { error } (503 without a
// Chromium: CHROMIUM names it, default /usr/bin/chromium; playwright-core drives it).
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
let running = 0;

/** Runs `scenario` of the lab at `origin` with a `rate`× slower CPU; resolves to its report. */
export async function slowRun({ origin, scenario, transport = 'fetch', rate = 4, timeout = 60000 }) {
  if (!existsSync(CHROMIUM)) throw Object.assign(new Error(`no Chromium at ${CHROMIUM} (set CHROMIUM)`), { status: 503 });
  if (running >= 2) throw Object.assign(new Error('two slow runs are already going'), { status: 429 });
  running++;
  let browser = null;
  try {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
    const q = new URLSearchParams({ scenario, transport, send: '1' });
    await page.goto(`${origin}/?${q}`);
    await page.waitForFunction(() => window.labReport, null, { timeout });
    return await page.evaluate(() => window.labReport);
  } finally {
    running--;
    if (browser) await browser.close().catch(() => {});
  }
}
