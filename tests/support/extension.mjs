// The browser extension under test: built (with the test server's origin granted, as its user
// would grant it when turning it on), loaded into Debian's Chromium in the new headless mode, and
// driven as a user would: the popup's switch turns it on for the site (the tab reloads), the page
// is used, the popup lists the reports and exports them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/demo-server.mjs';
import { buildExtension } from '../../scripts/build-extension.mjs';
import { CHROMIUM } from './helpers.mjs';

/**
 * The text of the overlay's panel in `page`: it is in a closed shadow root, which only the
 * DevTools protocol's pierced DOM reaches. Null without a panel.
 */
export async function overlayText(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
    let host = null;
    const find = (n) => {
      if (host) return;
      if (n.attributes && n.attributes.includes('data-tokenpaint-overlay')) host = n;
      for (const c of [...(n.children || []), ...(n.shadowRoots || [])]) find(c);
    };
    find(root);
    if (!host || !host.shadowRoots || !host.shadowRoots.length) return null;
    const texts = [];
    const collect = (n) => {
      if (n.nodeType === 3) texts.push(n.nodeValue);
      for (const c of n.children || []) collect(c);
    };
    collect(host.shadowRoots[0]);
    return texts.join(' ');
  } finally {
    await cdp.detach();
  }
}

export async function setupExtension() {
  const { server, url } = await startServer({ port: 0 });
  const origin = new URL(url).origin;
  const ext = await buildExtension({ dir: mkdtempSync(path.join(tmpdir(), 'tokenpaint-ext-')), origin });
  const profile = mkdtempSync(path.join(tmpdir(), 'tokenpaint-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: false,
    acceptDownloads: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', `--disable-extensions-except=${ext}`, `--load-extension=${ext}`],
  });
  const worker = context.serviceWorkers()[0] || (await context.waitForEvent('serviceworker'));
  const id = new URL(worker.url()).host;
  return {
    url,
    origin,
    context,
    worker,
    id,
    /**
     * A page of the test server, with its page errors and console errors collected (but those of
     * a resource on another host, which the closed network here fails: a web font, an image in
     * an answer).
     */
    async page(p) {
      const page = await context.newPage();
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(e.message));
      page.on('console', (m) => {
        const at = m.location().url || '';
        if (m.type() === 'error' && !(/^https?:/.test(at) && !at.startsWith(origin))) page.errors.push(`console: ${m.text()}`);
      });
      await page.goto(url + p);
      return page;
    },
    /** The tab id of `page`. */
    async tabOf(page) {
      const tabs = await worker.evaluate(() => chrome.tabs.query({}));
      const t = tabs.find((x) => x.url === page.url());
      return t && t.id;
    },
    /** The popup of `page`'s tab, opened as a page of its own. */
    async popup(page) {
      const tab = await this.tabOf(page);
      const p = await context.newPage();
      p.errors = [];
      p.on('pageerror', (e) => p.errors.push(e.message));
      await p.goto(`chrome-extension://${id}/popup.html?tab=${tab}`);
      await p.waitForSelector('#on:not([disabled])');
      return p;
    },
    /**
     * Turns it on for `page`'s site with the popup's switch, as a user does (the tab reloads);
     * when it is on already, `page` is reloaded.
     */
    async turnOn(page) {
      const popup = await this.popup(page);
      const reloaded = page.waitForEvent('load');
      if (!(await popup.isChecked('#on'))) await popup.click('#on');
      else await page.reload();
      await reloaded;
      await popup.close();
    },
    /** Turns it off for `page`'s site with the popup's switch (the tab reloads), if it is on. */
    async turnOff(page) {
      const popup = await this.popup(page);
      if (await popup.isChecked('#on')) {
        const reloaded = page.waitForEvent('load');
        await popup.click('#on');
        await reloaded;
      }
      await popup.close();
    },
    /** What the extension holds for `page`'s tab: reports, summaries, status. */
    async state(page) {
      const tab = await this.tabOf(page);
      return worker.evaluate(async (k) => (await chrome.storage.session.get(k))[k] || null, `tab:${tab}`);
    },
    /** Waits until the extension holds `n` reports for `page`'s tab; returns its state. */
    async reports(page, n, timeout = 20000) {
      const until = Date.now() + timeout;
      for (;;) {
        const st = await this.state(page);
        if ((st && st.reports.length >= n) || Date.now() > until) return st;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async close() {
      await context.close();
      await new Promise((r) => server.close(r));
      rmSync(ext, { recursive: true, force: true });
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
