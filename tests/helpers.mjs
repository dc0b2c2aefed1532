// Shared set-up for the page tests: the demo server on a free port and Debian's Chromium.
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/demo-server.mjs';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// The background-networking flags matter: the machines that run the tests have no network
// beyond package registries, and Chromium's background requests would hang or fail.
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function setup({ nginx = false } = {}) {
  const { server, url, nginx: ng } = await startServer({ port: 0, nginx });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return {
    url,
    nginx: ng,
    browser,
    async page(path) {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.errors = errors;
      await page.goto(url + path);
      return page;
    },
    /** The test harness page, once its module has loaded. */
    async harness() {
      const page = await this.page('/tests/pages/harness.html');
      await page.waitForFunction(() => window.harnessReady === true);
      return page;
    },
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

export const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';

/**
 * The same set-up in Debian's Firefox ESR, driven over WebDriver BiDi by puppeteer-core (which
 * downloads no browser). Its pages answer the calls the page tests make: evaluate(fn, arg),
 * waitForFunction(fn, arg, { timeout }), and `errors`.
 */
export async function setupFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const { server, url } = await startServer({ port: 0 });
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi' });
  return {
    url,
    browser,
    async page(path) {
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(url + path);
      return {
        errors,
        // Firefox really hides a tab that is not in front (no frames): bring it forward first.
        evaluate: async (fn, arg) => (await page.bringToFront(), page.evaluate(fn, arg)),
        waitForFunction: (fn, arg, o = {}) => page.waitForFunction(fn, { timeout: o.timeout || 15000 }, arg),
        close: () => page.close(),
      };
    },
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

export function median(values) {
  const v = values.filter((x) => x !== null).sort((a, b) => a - b);
  if (!v.length) return null;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** Per-token lags (painted − arrived) from a report's timeline. */
export function lags(report) {
  const { arrived, painted } = report.timeline;
  return arrived.map((a, i) => (painted[i] === null ? null : painted[i] - a));
}

export const FRAME = 1000 / 60;
