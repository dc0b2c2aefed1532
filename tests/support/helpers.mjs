// Shared set-up for the page tests: the demo server on a free port and Debian's Chromium.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/demo-server.mjs';
import { startDriver, newSession, stopGroup } from './webdriver.mjs';

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

/** In the page: the lab's module has run and attached its handlers (www/app.js marks it last). */
export const labReady = () => document.documentElement.dataset.lab === 'ready';

export async function setup({ nginx = false, otel = false } = {}) {
  const { server, url, nginx: ng } = await startServer({ port: 0, nginx, otel });
  const browser = await closingOnError(server, () => chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: LAUNCH_MS }));
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
    /** The lab (`/`), once its module has run and attached its handlers. */
    async lab() {
      const page = await this.page('/');
      await page.waitForFunction(labReady, null, { timeout: 30000 });
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
 * `start()`, with `server` closed if it fails: an open server would keep the test file's
 * process alive after its tests failed, and `node --test` waiting on it.
 */
async function closingOnError(server, start) {
  try {
    return await start();
  } catch (e) {
    server.closeAllConnections?.();
    await new Promise((r) => server.close(r));
    throw e;
  }
}

/** How long a browser may take to start, per attempt (ms). */
export const LAUNCH_MS = Number(process.env.LAUNCH_MS) || 60000;

/**
 * Firefox over WebDriver BiDi. A start that does not answer within LAUNCH_MS is tried once
 * more (a cold disk or a busy machine can hold the first); then the error says what Firefox
 * printed when started alone, so a CI log shows why.
 */
async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const options = { browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi', timeout: LAUNCH_MS };
  let first;
  try {
    return await puppeteer.launch(options);
  } catch (e) {
    first = e;
  }
  try {
    return await puppeteer.launch(options);
  } catch (second) {
    const alone = await printedAlone(FIREFOX, ['--headless', '--no-remote', '--remote-debugging-port=0', 'about:blank'], Math.min(LAUNCH_MS, 15000));
    throw new Error(`${FIREFOX} did not start, twice: ${first.message} / ${second.message}\nwhat it printed when started alone: ${alone}`);
  }
}

/** What `command` prints (stdout and stderr) in its first `ms` with a profile of its own. */
async function printedAlone(command, args, ms) {
  const profile = mkdtempSync(path.join(tmpdir(), 'tokenpaint-alone-'));
  const proc = spawn(command, ['--profile', profile, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const exited = new Promise((r) => proc.on('close', (code, signal) => r(`exited (${code ?? signal})`)));
  exited.catch(() => {});
  proc.on('error', (e) => (out += `spawn failed: ${e.message}`));
  const how = await Promise.race([exited, new Promise((r) => setTimeout(() => r(`still running after ${ms} ms`), ms))]);
  stopGroup(proc);
  rmSync(profile, { recursive: true, force: true });
  return `${how}; ${out.trim().slice(-3000) || '(nothing)'}`;
}

/**
 * The same set-up in Debian's Firefox ESR, driven over WebDriver BiDi by puppeteer-core (which
 * downloads no browser). Its pages answer the calls the page tests make: evaluate(fn, arg),
 * waitForFunction(fn, arg, { timeout }), and `errors`.
 */
export async function setupFirefox() {
  const { server, url } = await startServer({ port: 0 });
  const browser = await closingOnError(server, launchFirefox);
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
        raw: page,
        // Firefox really hides a tab that is not in front (no frames): bring it forward first.
        evaluate: async (fn, arg) => (await page.bringToFront(), page.evaluate(fn, arg)),
        waitForFunction: (fn, arg, o = {}) => page.waitForFunction(fn, { timeout: o.timeout || 15000 }, arg),
        screenshot: async () => (await page.bringToFront(), Buffer.from(await page.screenshot({ fullPage: true }))),
        close: () => page.close(),
      };
    },
    /** Hides `page` for `ms` behind another tab brought to front, as a user switching tabs. */
    async hide(page, ms) {
      const other = await browser.newPage();
      await other.bringToFront();
      await new Promise((r) => setTimeout(r, ms));
      await page.raw.bringToFront();
      await other.close();
    },
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER || '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.MINIBROWSER || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';

/** An X server of its own for a headful browser: Xvfb on the first free display. */
async function startXvfb() {
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const display = await new Promise((resolve, reject) => {
    let out = '';
    proc.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    proc.on('exit', () => reject(new Error(`Xvfb exited: ${stderr}`)));
    setTimeout(() => reject(new Error(`Xvfb did not start: ${stderr}`)), 10000);
  });
  return { display, close: () => proc.kill() };
}

/**
 * WebKitGTK's MiniBrowser under Xvfb, driven over WebDriver by its WebKitWebDriver (Debian's
 * webkit2gtk-driver): one driver, browser and session per page (a driver serves one session). Page errors are gathered by listeners added
 * after each load and read after each script.
 */
export async function setupWebKit() {
  const { server, url } = await startServer({ port: 0 });
  const x = await closingOnError(server, startXvfb);
  const drivers = [];
  const sessions = [];
  const capabilities = { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } };
  return {
    url,
    async page(path) {
      const driver = await startDriver(WEBKIT_DRIVER, { ...process.env, DISPLAY: x.display });
      drivers.push(driver);
      const s = await newSession(driver.base, capabilities, { startMs: LAUNCH_MS }).catch((e) => {
        driver.stop();
        throw new Error(`${e.message}\nWebKitWebDriver said: ${driver.stderr().slice(-2000) || '(nothing)'}`);
      });
      sessions.push(s);
      await s.goto(url + path);
      await s.evaluate(() => {
        window.pageErrors = [];
        addEventListener('error', (e) => window.pageErrors.push(e.message));
        addEventListener('unhandledrejection', (e) => window.pageErrors.push(String(e.reason)));
      });
      const errors = [];
      const gather = async () => errors.splice(0, errors.length, ...(await s.evaluate(() => window.pageErrors || [])));
      return {
        errors,
        session: s,
        evaluate: async (fn, arg) => {
          let out;
          try {
            out = await s.evaluate(fn, arg);
          } catch (e) {
            // A crashed web process takes the session with it: say what the driver saw.
            if (/crash|parse script result/i.test(e.message)) e.message += `\nWebKitWebDriver said: ${driver.stderr().slice(-2000)}`;
            throw e;
          }
          await gather();
          return out;
        },
        waitForFunction: (fn, arg, o) => s.waitForFunction(fn, arg, o),
        screenshot: () => s.screenshot(),
        close: () => s.close(),
      };
    },
    /** Hides `page` for `ms`: its window minimized (WebKit then hides the page), then restored. */
    async hide(page, ms) {
      await page.session.minimize();
      await new Promise((r) => setTimeout(r, ms));
      await page.session.restore();
    },
    async close() {
      for (const s of sessions) await s.close();
      for (const d of drivers) d.stop();
      x.close();
      await new Promise((r) => server.close(r));
    },
  };
}

/**
 * What `window.crossOrigin()` (tests/pages/harness.js) must give in every engine: without
 * Timing-Allow-Origin, `server-timing` is unavailable and the entry's details withheld; with it,
 * or with the header exposed by CORS, it is not.
 */
export function holdsCrossOrigin({ withheld, allowed, exposed }) {
  assert.ok(withheld.unavailable.includes('server-timing'), JSON.stringify(withheld));
  assert.equal(withheld.firstByte, null, "the browser withheld the entry's details");
  assert.ok(!allowed.unavailable.includes('server-timing'), JSON.stringify(allowed));
  assert.ok(allowed.firstByte > 0, JSON.stringify(allowed));
  assert.ok(!exposed.unavailable.includes('server-timing'), JSON.stringify(exposed));
  assert.equal(exposed.serverTimings.prefill, 20, 'the header exposed by CORS was read');
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

/**
 * Where report `a` differs from report `b`, by path: every key, string, flag, null and number
 * (exactly). [] when none. A message that names the field, where deepEqual prints two reports.
 */
export function reportDiff(a, b, at = '') {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b) ? [] : [`${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
  if (Array.isArray(a) !== Array.isArray(b)) return [`${at}: array vs object`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => (k in a && k in b ? reportDiff(a[k], b[k], `${at}.${k}`) : [`${at}.${k}: only in ${k in a ? 'the first' : 'the second'}`]));
}
