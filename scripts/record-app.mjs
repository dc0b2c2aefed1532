// Records a real chat app as its page sees it, for the replay tests (issues 47 and 58):
// - the wire: every fetch (its method, URL and body) with each body chunk, every XMLHttpRequest
//   (its body and response), EventSource event and WebSocket frame both ways (text, or binary as
//   base64), each with its performance.now() time;
// - the page: its body when the question is sent (`dom.snapshot`, as a tree: scripts and styles
//   kept as empty elements so that every path stays right) and each batch of changes after it
//   (`dom.batches`: the time, and for each element whose children changed, its path from the body
//   and its children as they then were);
// - the user's submit (`submitAt`: the Enter's or click's event time), the question, and the answer
//   the app was made to stream (`answer`, its tokens).
// A logger is injected before the app's own scripts (the same place tokenpaint's injected script
// runs); nothing else is changed. The app is driven as a user would: the question is typed and
// sent, and the recording ends once the page shows the whole answer and has been still for
// `settle` ms. The app's session tokens (a throwaway local install's) are redacted.
//
//   node scripts/record-app.mjs chainlit http://127.0.0.1:8000/ tests/recordings/chainlit-2.12.0.json --version=2.12.0
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
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
  const LIMIT = 1 << 20;
  const data = (d) => {
    if (typeof d === 'string') return { text: d.length > LIMIT ? d.slice(0, LIMIT) : d };
    if (d instanceof URLSearchParams) return { text: String(d) };
    const u8 = d instanceof ArrayBuffer ? new Uint8Array(d) : ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : null;
    if (u8) return { bytes: b64(u8.subarray(0, LIMIT)) };
    if (d === null || d === undefined) return {};
    return { other: Object.prototype.toString.call(d) };
  };
  // A request's body: `body` (text) or `bodyBytes` (base64).
  const bodyOf = (d) => {
    const x = data(d);
    return x.text !== undefined ? { body: x.text } : x.bytes !== undefined ? { bodyBytes: x.bytes } : x.other ? { body: null, bodyKind: x.other } : { body: null };
  };
  let next = 1;
  window.__wire = log;
  // The user's submit: the last Enter in a text field, or click, before the question went out.
  const submit = (e) => {
    if (e.type === 'keydown' && (e.key !== 'Enter' || e.shiftKey)) return;
    window.__submits = window.__submits || [];
    window.__submits.push({ t: e.timeStamp, type: e.type });
  };
  addEventListener('keydown', submit, true);
  addEventListener('click', submit, true);
  const F = window.fetch;
  window.fetch = function (input, init) {
    const id = next++;
    const url = typeof input === 'string' ? input : input && input.url ? input.url : String(input);
    const method = (init && init.method) || (input && input.method) || 'GET';
    const entry = { id, kind: 'fetch', t: performance.now(), url: new URL(url, location.href).href, method, ...bodyOf(init && init.body) };
    log.push(entry);
    // A Request carries its own body (marimo's client sends them): read from a copy.
    if (input instanceof Request && !(init && init.body) && input.body) input.clone().text().then((b) => (entry.body = b), () => {});
    return F.apply(this, arguments).then((res) => {
      log.push({ id, kind: 'response', t: performance.now(), status: res.status, type: res.headers.get('content-type') });
      if (!res.body) return res;
      // A clone is read: the app keeps its own Response (its url, type and all).
      const r = res.clone().body.getReader();
      (async () => {
        try {
          for (;;) {
            const x = await r.read();
            if (x.done) return log.push({ id, kind: 'end', t: performance.now() });
            const u8 = x.value;
            // Text bodies are kept as text (the replays and the reader tests read them); others as bytes.
            const text = dec.decode(u8);
            log.push({ id, kind: 'chunk', t: performance.now(), ...(text.includes('\uFFFD') ? { bytes: b64(u8) } : { text }) });
          }
        } catch (e) {
          log.push({ id, kind: 'error', t: performance.now(), message: String(e && e.name) });
        }
      })();
      return res;
    });
  };
  const WS = window.WebSocket;
  window.WebSocket = function (url, p) {
    const ws = p === undefined ? new WS(url) : new WS(url, p);
    const id = next++;
    log.push({ id, kind: 'websocket', t: performance.now(), url: new URL(String(url), location.href).href });
    ws.addEventListener('open', (e) => log.push({ id, kind: 'open', t: e.timeStamp }));
    ws.addEventListener('message', (e) => log.push({ id, kind: 'frame', t: e.timeStamp, ...data(e.data) }));
    ws.addEventListener('close', (e) => log.push({ id, kind: 'close', t: e.timeStamp, code: e.code }));
    const send = ws.send;
    ws.send = function (d) {
      log.push({ id, kind: 'sent', t: performance.now(), ...data(d) });
      return send.apply(this, arguments);
    };
    const close = ws.close;
    ws.close = function () {
      log.push({ id, kind: 'closed-by-page', t: performance.now() });
      return close.apply(this, arguments);
    };
    return ws;
  };
  window.WebSocket.prototype = WS.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  const open = XMLHttpRequest.prototype.open;
  const xsend = XMLHttpRequest.prototype.send;
  const xhrs = new WeakMap();
  XMLHttpRequest.prototype.open = function (method, url) {
    xhrs.set(this, { method, url: new URL(url, location.href).href });
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function (body) {
    const id = next++;
    const x = xhrs.get(this) || {};
    log.push({ id, kind: 'xhr', t: performance.now(), url: x.url, method: x.method, ...bodyOf(body) });
    // A streamed response (server-sent events over XMLHttpRequest, as Mesop reads them): each
    // progress event's new text.
    let seen = 0;
    this.addEventListener('progress', (e) => {
      if (this.responseType !== '' && this.responseType !== 'text') return;
      const all = this.responseText;
      if (all.length > seen) log.push({ id, kind: 'xhr-progress', t: e.timeStamp, text: all.slice(seen) });
      seen = all.length;
    });
    this.addEventListener('load', (e) => {
      const text = this.responseType === '' || this.responseType === 'text' ? this.responseText : null;
      const bytes = this.responseType === 'arraybuffer' ? data(this.response) : {};
      log.push({ id, kind: 'xhr-load', t: e.timeStamp, status: this.status, type: this.getResponseHeader('content-type'), text, ...bytes });
    });
    return xsend.apply(this, arguments);
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

  // The page: a tree of the body when asked (`__domStart`), then each batch of changes.
  const MAX_ATTR = 2000;
  // Open shadow roots are kept as `s` (children) on their host, observed like the body.
  const shadows = new Set();
  const tree = (node) => {
    if (node.nodeType === 3) return node.data;
    if (node.nodeType === 8) return { c: node.data };
    if (node.nodeType !== 1) return { c: '' };
    const out = { n: node.localName };
    if (node.namespaceURI && node.namespaceURI !== 'http://www.w3.org/1999/xhtml') out.ns = node.namespaceURI;
    const a = {};
    for (const at of node.attributes) if (!/^on/i.test(at.name) && at.value.length <= MAX_ATTR) a[at.name] = at.value;
    if (Object.keys(a).length) out.a = a;
    // Scripts, styles and templates are kept empty: they hold no answer, and their place keeps
    // every path right.
    if (!/^(script|style|noscript|template|link|iframe)$/.test(node.localName)) out.k = [...node.childNodes].map(tree);
    if (node.shadowRoot) {
      out.s = [...node.shadowRoot.childNodes].map(tree);
      watch(node.shadowRoot);
    }
    return out;
  };
  // A node's path from the body: child indices, and 's' where it goes into a host's shadow root.
  const pathOf = (node) => {
    const p = [];
    for (let n = node; n && n !== document.body; ) {
      if (n.nodeType === 11) {
        if (!n.host) return null;
        p.unshift('s');
        n = n.host;
        continue;
      }
      if (!n.parentNode) return null;
      p.unshift(Array.prototype.indexOf.call(n.parentNode.childNodes, n));
      n = n.parentNode;
    }
    return p;
  };
  let watch = () => {};
  window.__dom = null;
  window.__domStart = () => {
    const batches = [];
    const onRecords = (records) => {
      const t = performance.now();
      const roots = new Set();
      for (const r of records) {
        const el = r.type === 'characterData' ? r.target.parentNode : r.target;
        if (el && (el.nodeType === 1 || el.nodeType === 11) && el.isConnected) roots.add(el);
      }
      // Only the outermost of the changed nodes: its children hold the others'.
      const inside = (o, el) => o !== el && (o.contains(el) || (o.nodeType === 1 && o.shadowRoot && (o.shadowRoot === el || o.shadowRoot.contains(el))));
      const top = [...roots].filter((el) => ![...roots].some((o) => inside(o, el)));
      const ops = [];
      for (const el of top) {
        const p = el === document.body ? [] : pathOf(el);
        if (p) ops.push({ p, k: [...el.childNodes].map(tree) });
      }
      if (ops.length) batches.push({ t, ops });
    };
    const mo = new MutationObserver(onRecords);
    watch = (root) => {
      if (shadows.has(root)) return;
      shadows.add(root);
      mo.observe(root, { childList: true, subtree: true, characterData: true });
    };
    window.__dom = { snapshot: { t: performance.now(), title: document.title, body: tree(document.body) }, batches };
    mo.observe(document.body, { childList: true, subtree: true, characterData: true });
  };
}

// How each app is asked: its prompt field, and (if Enter does not send) the button that sends.
export const APPS = {
  gradio: { prompt: 'textarea' },
  'open-webui': {
    prompt: '#chat-input',
    // The release notes open over a fresh install's first page.
    async prepare(page) {
      const ok = page.getByText("Okay, Let's Go!");
      if (await ok.count()) await ok.first().click();
    },
  },
  chainlit: { prompt: '#chat-input' },
  streamlit: { prompt: 'textarea[data-testid="stChatInputTextArea"]' },
  nicegui: { prompt: 'input[placeholder="Say something"]' },
  mesop: { prompt: 'input.mat-mdc-input-element' },
  marimo: { prompt: 'marimo-chatbot textarea, marimo-chatbot [contenteditable="true"]' },
  solara: { prompt: 'input[type="text"]' },
  // shinychat's input is a ProseMirror editor.
  shiny: { prompt: 'shiny-chat-input [contenteditable="true"], shiny-chat-container [contenteditable="true"]' },
  panel: { prompt: 'textarea.bk-input' },
  // Taipy loads MathJax from a CDN this machine does not reach: it is served from npm
  // (scripts/real-apps.sh installs it into $APPS/taipy-cdn).
  taipy: { prompt: '.taipy-chat input:not([type="file"]), .taipy-chat textarea', cdn: { 'https://cdnjs.cloudflare.com/ajax/libs/mathjax/3.2.2/': 'taipy-cdn/node_modules/mathjax/' } },
  pywebio: { prompt: 'input[placeholder="Say something"]' },
  wave: { prompt: 'textarea, input[placeholder="Say something"]' },
  // FastHTML's page loads htmx and its WebSocket extension from a CDN this machine does not
  // reach: they are served from npm (scripts/real-apps.sh installs them into $APPS/fasthtml-cdn).
  fasthtml: { prompt: 'input[name="msg"]', cdn: { 'https://cdn.jsdelivr.net/npm/': 'fasthtml-cdn/node_modules/' } },
  // Rio takes a headless browser for a search engine's crawler and serves it a page without a
  // session: the page is asked for as a desktop browser asks.
  rio: { prompt: '.rio-text-input input, input[type="text"]', desktop: true },
};

/**
 * Serves what `app` asks a CDN for from the copies installed under `apps` (its `cdn`: URL prefix
 * to folder), as the app's own CDN would.
 * @param {string} app
 * @param {import('playwright-core').Page | import('playwright-core').BrowserContext} page
 * @param {string} [apps]
 */
export async function routeCdn(app, page, apps = process.env.APPS || '/opt/tokenpaint-apps') {
  const cdn = APPS[app] && APPS[app].cdn;
  if (!cdn) return;
  for (const [prefix, dir] of Object.entries(cdn)) {
    await page.route(`${prefix}**`, (route) => {
      // A package's version in the URL (`htmx.org@2.0.7/dist/htmx.js`) is the one installed.
      const rest = new URL(route.request().url()).pathname.slice(new URL(prefix).pathname.length).replace(/^((?:@[^/]+\/)?[^/@]+)@[^/]+/, '$1');
      const file = path.join(apps, dir, rest);
      try {
        route.fulfill({ status: 200, contentType: file.endsWith('.js') ? 'text/javascript' : 'application/octet-stream', body: readFileSync(file) });
      } catch {
        route.fulfill({ status: 404, body: '' });
      }
    });
  }
}

/**
 * The page's options for `app`: a desktop browser's user agent where the app serves a headless
 * one differently (the same Chromium, its version kept).
 * @param {string} app
 * @param {import('playwright-core').Browser} browser
 */
export function pageOptions(app, browser) {
  if (!APPS[app] || !APPS[app].desktop) return {};
  const major = browser.version().split('.')[0];
  return { userAgent: `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36` };
}

const letters = (s) => s.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();

export async function record(app, url, { question = 'Say something', answer = [], settle = 1500, timeout = 60000 } = {}) {
  const a = APPS[app];
  if (!a) throw new Error(`unknown app ${app}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage(pageOptions(app, browser));
    page.on('pageerror', (e) => console.error(`${app}: page error: ${e.message}`));
    await routeCdn(app, page);
    await page.addInitScript(logger);
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector(a.prompt, { timeout });
    await page.waitForTimeout(1500);
    if (a.prepare) await a.prepare(page);
    const input = page.locator(a.prompt).first();
    await input.click();
    await input.fill(question);
    await page.evaluate(() => window.__domStart());
    const asked = await page.evaluate(() => performance.now());
    if (a.send) await page.locator(a.send).first().click();
    else await input.press('Enter');
    // The answer is over once the page shows all of it and has been still for `settle` ms.
    const whole = letters(answer.join(''));
    let last = '';
    let stillSince = Date.now();
    for (const until = Date.now() + timeout; Date.now() < until; ) {
      const text = await page.evaluate(() => {
        // The page's text, inside open shadow roots too (marimo renders its chat in one).
        const deep = (n) => (n.nodeType === 3 ? n.data : [...(n.shadowRoot ? n.shadowRoot.childNodes : []), ...n.childNodes].map(deep).join(''));
        return deep(document.body);
      });
      if (text !== last) [last, stillSince] = [text, Date.now()];
      else if (Date.now() - stillSince > settle && letters(text).includes(whole)) break;
      await page.waitForTimeout(100);
    }
    if (!letters(last).includes(whole)) {
      await page.screenshot({ path: path.join(os.tmpdir(), `record-${app}.png`) }).catch(() => {});
      throw new Error(`${app}: the page never showed the whole answer (a screenshot: ${path.join(os.tmpdir(), `record-${app}.png`)})`);
    }
    const r = await page.evaluate(() => ({ wire: window.__wire, dom: window.__dom, submits: window.__submits || [], userAgent: navigator.userAgent }));
    const submit = r.submits.filter((s) => s.t >= asked).shift();
    return { question, answer, asked, submitAt: submit ? submit.t : asked, wire: r.wire, dom: r.dom, userAgent: r.userAgent };
  } finally {
    await browser.close();
  }
}

/**
 * The recording's own account of the ask: the first request or frame the page sent after the
 * submit whose body carried the question (as text, JSON with escapes, base64 or UTF-8 bytes), as
 * `{ id, kind, t }`; null when none did (then the submit is the ask).
 */
export function askOf(r) {
  const q = letters(r.question);
  const decoded = (w) => {
    const raw = w.bodyBytes ? Buffer.from(w.bodyBytes, 'base64').toString('utf8') : w.bytes ? Buffer.from(w.bytes, 'base64').toString('utf8') : (w.body ?? w.text ?? '');
    let s = String(raw).replace(/\\u([0-9a-fA-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
    if (/^[A-Za-z0-9+/]{16,}={0,2}$/.test(s.trim())) s += Buffer.from(s.trim(), 'base64').toString('utf8');
    return letters(s);
  };
  for (const w of r.wire) {
    if (w.t < r.submitAt || !['fetch', 'xhr', 'sent'].includes(w.kind)) continue;
    if (decoded(w).includes(q)) return { id: w.id, kind: w.kind, t: w.t };
  }
  return null;
}

/** The app's session tokens (a throwaway local install's) are not kept. */
function redact(wire) {
  for (const w of wire) {
    for (const k of ['text', 'body']) if (typeof w[k] === 'string') w[k] = w[k].replace(/(\\?"(?:token|access_token|sessionId|session_token)\\?"\s*:\s*\\?")[A-Za-z0-9._-]{8,}/g, '$1REDACTED');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [app, url, out, ...rest] = process.argv.slice(2);
  const opt = (k) => (rest.find((x) => x.startsWith(`--${k}=`)) || '').slice(k.length + 3) || null;
  const version = opt('version');
  const answerFile = opt('answer');
  const answer = answerFile ? JSON.parse(readFileSync(answerFile, 'utf8')) : [];
  const r = await record(app, url, { answer });
  redact(r.wire);
  r.ask = askOf(r);
  r.prompt = APPS[app].prompt;
  mkdirSync(path.dirname(out), { recursive: true });
  const machine = `${os.type()} ${os.release()}, ${os.cpus().length} cores, Node ${process.version}`;
  writeFileSync(out, JSON.stringify({ app, version, recorded: new Date().toISOString().slice(0, 10), how: `scripts/record-app.mjs ${app} ${url}`, machine, ...r }));
  console.log(`recorded ${r.wire.length} wire entries and ${r.dom ? r.dom.batches.length : 0} DOM batches to ${out}`);
}
