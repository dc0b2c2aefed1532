// Records a real chat app's traffic as its page sees it, for the replay tests (issue 47): every
// fetch body chunk, XMLHttpRequest progress, EventSource event and WebSocket frame, with its
// performance.now() time, its URL and method, and the response's status and content type; and
// the answer's element as the app rendered it. A logger is injected before the app's own scripts
// (the same place tokenpaint's injected script runs); nothing else is changed.
//
//   node scripts/record-app.mjs gradio http://127.0.0.1:7860/ tests/recordings/gradio-6.31.0.json
//   node scripts/record-app.mjs open-webui http://127.0.0.1:8080/ tests/recordings/open-webui-0.12.4.json
//
// The app is driven as a user would: the prompt is typed and sent, and the recording ends once the
// page's text has been still for 1.5 s after the answer began. `--version` names the app's version
// in the fixture (the app's own package version by default, read by the caller).
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, ARGS } from '../tests/support/helpers.mjs';

// Runs in the page before its scripts: wraps the transports and keeps what they carried.
function logger() {
  const log = [];
  const b64 = (u8) => {
    let s = '';
    for (let i = 0; i < u8.length; i++) s += String.fromCharCode(u8[i]);
    return btoa(s);
  };
  const dec = new TextDecoder();
  const data = (d) => {
    if (typeof d === 'string') return { text: d };
    const u8 = d instanceof ArrayBuffer ? new Uint8Array(d) : ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : null;
    return u8 ? { bytes: b64(u8), text: dec.decode(u8) } : { other: String(d) };
  };
  let next = 1;
  window.__wire = log;
  const F = window.fetch;
  window.fetch = function (input, init) {
    const id = next++;
    const url = typeof input === 'string' ? input : input && input.url ? input.url : String(input);
    const method = (init && init.method) || (input && input.method) || 'GET';
    const body = init && typeof init.body === 'string' ? init.body.slice(0, 4000) : null;
    log.push({ id, kind: 'fetch', t: performance.now(), url: new URL(url, location.href).href, method, body });
    return F.apply(this, arguments).then((res) => {
      log.push({ id, kind: 'response', t: performance.now(), status: res.status, type: res.headers.get('content-type') });
      if (!res.body) return res;
      const [a, b] = res.body.tee();
      const r = b.getReader();
      (async () => {
        try {
          for (;;) {
            const x = await r.read();
            if (x.done) return log.push({ id, kind: 'end', t: performance.now() });
            log.push({ id, kind: 'chunk', t: performance.now(), ...data(x.value) });
          }
        } catch (e) {
          log.push({ id, kind: 'error', t: performance.now(), message: String(e && e.name) });
        }
      })();
      return new Response(a, { status: res.status, statusText: res.statusText, headers: res.headers });
    });
  };
  const WS = window.WebSocket;
  window.WebSocket = function (url, p) {
    const ws = p === undefined ? new WS(url) : new WS(url, p);
    const id = next++;
    log.push({ id, kind: 'websocket', t: performance.now(), url: String(url) });
    ws.addEventListener('message', (e) => log.push({ id, kind: 'frame', t: e.timeStamp, ...data(e.data) }));
    ws.addEventListener('close', (e) => log.push({ id, kind: 'close', t: e.timeStamp, code: e.code }));
    const send = ws.send;
    ws.send = function (d) {
      log.push({ id, kind: 'sent', t: performance.now(), ...data(d) });
      return send.apply(this, arguments);
    };
    return ws;
  };
  window.WebSocket.prototype = WS.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url) {
    const id = next++;
    log.push({ id, kind: 'xhr', t: performance.now(), url: new URL(url, location.href).href, method });
    this.addEventListener('load', (e) => log.push({ id, kind: 'xhr-load', t: e.timeStamp, status: this.status, type: this.getResponseHeader('content-type'), text: typeof this.responseText === 'string' && (this.responseType === '' || this.responseType === 'text') ? this.responseText : null }));
    return open.apply(this, arguments);
  };
  const ES = window.EventSource;
  if (ES) {
    window.EventSource = function (url, o) {
      const es = new ES(url, o);
      const id = next++;
      log.push({ id, kind: 'eventsource', t: performance.now(), url: new URL(url, location.href).href });
      es.addEventListener('message', (e) => log.push({ id, kind: 'event', t: e.timeStamp, text: e.data }));
      return es;
    };
    window.EventSource.prototype = ES.prototype;
  }
}

const APPS = {
  gradio: { prompt: 'textarea', answer: '.message-row.bot-row, [data-testid="bot"]' },
  'open-webui': {
    prompt: '#chat-input',
    answer: '#response-content-container',
    // The release notes open over a fresh install's first page.
    async prepare(page) {
      const ok = page.getByText("Okay, Let's Go!");
      if (await ok.count()) await ok.first().click();
    },
  },
};

export async function record(app, url, { prompt = 'Say something', settle = 1500, timeout = 60000 } = {}) {
  const a = APPS[app];
  if (!a) throw new Error(`unknown app ${app}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage();
    await page.addInitScript(logger);
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector(a.prompt, { timeout });
    await page.waitForTimeout(1000);
    if (a.prepare) await a.prepare(page);
    const input = page.locator(a.prompt).first();
    await input.click();
    await input.fill(prompt);
    const asked = await page.evaluate(() => performance.now());
    await input.press('Enter');
    await page.waitForSelector(a.answer, { timeout });
    // The answer is over once the page's text has been still for `settle` ms.
    let last = '';
    let stillSince = Date.now();
    for (const until = Date.now() + timeout; Date.now() < until; ) {
      const text = await page.evaluate(() => document.body.innerText);
      if (text !== last) [last, stillSince] = [text, Date.now()];
      else if (Date.now() - stillSince > settle) break;
      await page.waitForTimeout(100);
    }
    const answerHtml = await page.evaluate((sel) => [...document.querySelectorAll(sel)].map((e) => e.outerHTML).slice(-1)[0] || null, a.answer);
    const wire = await page.evaluate(() => window.__wire);
    return { asked, wire, answerHtml, userAgent: await page.evaluate(() => navigator.userAgent) };
  } finally {
    await browser.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [app, url, out, ...rest] = process.argv.slice(2);
  const version = (rest.find((x) => x.startsWith('--version=')) || '').slice(10) || null;
  const r = await record(app, url);
  mkdirSync(path.dirname(out), { recursive: true });
  // The app's session tokens (a throwaway local install's) are not kept.
  for (const w of r.wire) {
    for (const k of ['text', 'body']) if (typeof w[k] === 'string') w[k] = w[k].replace(/(\\?"token\\?"\s*:\s*\\?")[A-Za-z0-9._-]+/g, '$1REDACTED');
    if (w.bytes && w.text !== undefined) delete w.bytes;
  }
  writeFileSync(out, JSON.stringify({ app, version, recorded: new Date().toISOString().slice(0, 10), how: 'scripts/record-app.mjs', ...r }, null, 1));
  console.log(`recorded ${r.wire.length} wire entries to ${out}`);
}
