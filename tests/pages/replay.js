// The page side of a recorded app's replay (scripts/replay-server.mjs): the page as the app showed
// it when the question was asked, then, in the recorded order and with the recorded gaps after
// their causes, the requests and socket frames the app's page sent and the changes its DOM went
// through. The question's part waits for the user: an Enter in a text field (or `send()`).
// It knows nothing of tokenpaint; `window.truth` is the page's own record of what it showed and
// when it was painted (a MutationObserver, and a frame loop's after-paint marks).

const rec = JSON.parse(document.getElementById('tp-recording').textContent);
const HTML = 'http://www.w3.org/1999/xhtml';
const INERT = { script: ['src', 'type'], link: ['href'], iframe: ['src', 'srcdoc'], img: ['src', 'srcset'], source: ['src', 'srcset'], video: ['src'], audio: ['src'] };
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const b64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

// --- the page's truth, before anything changes ---
const changes = [];
const marks = [];
// What the page shows: its text, shadow roots too, but not the text of its styles and scripts
// (Bokeh puts a stylesheet in every message's shadow root, and CSS holds words).
const deep = (n) => (n.nodeType === 3 ? n.data : (n.nodeType === 1 && !/^(STYLE|SCRIPT|TEMPLATE|NOSCRIPT)$/.test(n.nodeName)) || n.nodeType === 11 ? [...(n.shadowRoot ? n.shadowRoot.childNodes : []), ...n.childNodes].map(deep).join('') : '');
const letters = (s) => s.replace(/[^\p{L}\p{N}]/gu, '').toLowerCase();
window.truth = { changes, marks, submitAt: null, askAt: null, heard: [] };
{
  // The after-paint mark: a task posted from each frame's rAF callback, at user-blocking priority
  // where the browser has it (Chromium's scheduler.postTask), so that it runs once the frame is
  // painted and not behind the page's own queued tasks (a MessageChannel message waited for them:
  // NiceGUI's and Panel's rendering work, up to 70 ms, came first); else a MessageChannel message.
  const ch = new MessageChannel();
  const mark = () => marks.push(performance.now());
  ch.port1.onmessage = mark;
  const sched = /** @type {any} */ (globalThis).scheduler;
  const post = sched && typeof sched.postTask === 'function' ? () => sched.postTask(mark, { priority: 'user-blocking' }) : () => ch.port2.postMessage(0);
  const loop = () => {
    post();
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}
const note = () => {
  const c = { t: performance.now(), text: letters(deep(document.body)) };
  const last = changes[changes.length - 1];
  if (!last || last.text !== c.text) changes.push(c);
};
// The truth's observer is made before tokenpaint's (tests/support/replay.mjs makes it before the
// injected script runs), so that its callback comes first: a change's time is then the page's,
// not after tokenpaint's own handling of it.
const truthMo = window.__truthObserver ? window.__truthObserver(note) : new MutationObserver(note);
const watchTruth = (root) => truthMo.observe(root, { childList: true, subtree: true, characterData: true });

// --- the DOM: built from the recorded tree, changed by morphing to each recorded state ---
function build(spec) {
  if (typeof spec === 'string') return document.createTextNode(spec);
  if (spec.c !== undefined) return document.createComment(spec.c);
  const el = document.createElementNS(spec.ns || HTML, spec.n);
  // The app's scripts, styles and frames are not loaded again: their place is kept, inert.
  const inert = INERT[spec.n];
  for (const [k, v] of Object.entries(spec.a || {})) {
    if (inert && inert.includes(k)) continue;
    try {
      el.setAttribute(k, v);
    } catch {
      /* an attribute name the DOM refuses */
    }
  }
  if (spec.n === 'script') el.setAttribute('type', 'text/inert');
  for (const k of spec.k || []) el.appendChild(build(k));
  if (spec.s) {
    const root = el.attachShadow({ mode: 'open' });
    for (const k of spec.s) root.appendChild(build(k));
    watchTruth(root);
  }
  return el;
}
const keyOf = (n) => (n.nodeType === 1 ? `${n.localName}|${n.getAttribute('class') || ''}|${n.getAttribute('id') || ''}` : null);
const specKey = (s) => `${s.n}|${(s.a && s.a.class) || ''}|${(s.a && s.a.id) || ''}`;
function same(node, spec) {
  if (!node || spec === undefined) return false;
  if (typeof spec === 'string') return node.nodeType === 3;
  if (spec.c !== undefined) return node.nodeType === 8;
  return node.nodeType === 1 && keyOf(node) === specKey(spec);
}
function update(node, spec) {
  if (typeof spec === 'string' || spec.c !== undefined) {
    const v = typeof spec === 'string' ? spec : spec.c;
    if (node.data !== v) node.data = v;
    return;
  }
  const want = spec.a || {};
  const inert = INERT[spec.n] || [];
  for (const a of [...node.attributes]) if (!(a.name in want) && !(spec.n === 'script' && a.name === 'type')) node.removeAttribute(a.name);
  for (const [k, v] of Object.entries(want)) {
    if (inert.includes(k)) continue;
    if (node.getAttribute(k) !== v) {
      try {
        node.setAttribute(k, v);
      } catch {
        /* refused */
      }
    }
  }
  if (spec.k) morph(node, spec.k);
  if (spec.s) {
    if (!node.shadowRoot) watchTruth(node.attachShadow({ mode: 'open' }));
    morph(node.shadowRoot, spec.s);
  }
}
// The children of `parent` made like `specs`, changing what is there rather than replacing it
// (a text grows in place, as frameworks render it): a node is kept when it is of the same kind
// (tag, class and id for an element); one missing is inserted, one gone removed.
function morph(parent, specs) {
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i];
    const cur = parent.childNodes[i];
    if (same(cur, spec)) {
      update(cur, spec);
      continue;
    }
    const next = cur ? cur.nextSibling : null;
    if (cur && same(next, spec) && !same(cur, specs[i + 1])) {
      cur.remove();
      update(next, spec);
      continue;
    }
    parent.insertBefore(build(spec), cur || null);
  }
  while (parent.childNodes.length > specs.length) parent.lastChild.remove();
}
function at(path) {
  let n = document.body;
  for (const step of path) {
    n = step === 's' ? n && n.shadowRoot : n && n.childNodes[step];
    if (!n) return null;
  }
  return n;
}

// --- the page's side of the wire, and its DOM changes, in order ---
// What went over the network: a page's reads of its own blob: and data: URLs did not.
function replayable(w) {
  const local = new Set(w.filter((x) => x.url && !/^(https?|wss?):/.test(x.url)).map((x) => x.id));
  return w.filter((x) => !local.has(x.id));
}
const CLIENT = new Set(['fetch', 'xhr', 'websocket', 'eventsource', 'sent', 'closed-by-page']);
const SERVER = new Set(['response', 'chunk', 'end', 'error', 'frame', 'close', 'xhr-progress', 'xhr-load', 'event']);
const wire = replayable(rec.wire)
  .map((w, k) => ({ ...w, k }))
  .filter((w) => CLIENT.has(w.kind) || SERVER.has(w.kind))
  .sort((a, b) => a.t - b.t || a.k - b.k);
// Every entry of the page's (requests, frames, DOM batches) with the server's last entry before it.
const dom = (rec.dom ? rec.dom.batches : []).map((b) => ({ ...b, kind: 'dom' }));
const steps = [...wire, ...dom].sort((a, b) => a.t - b.t);
const seen = new Map(); // a server entry's place → when the page had it
const waiting = new Map();
const had = (e) => {
  if (seen.has(e)) return;
  seen.set(e, performance.now());
  for (const w of waiting.get(e) || []) w();
  waiting.delete(e);
};
const got = (e) => (seen.has(e) ? Promise.resolve() : new Promise((r) => (waiting.get(e) || waiting.set(e, []).get(e)).push(r)));
// Per connection: its server entries in order, with the bytes or frames that complete each.
const conns = new Map();
for (const e of wire) {
  if (['fetch', 'xhr', 'websocket', 'eventsource'].includes(e.kind)) conns.set(e.id, { open: e, server: [], sockets: null });
}
for (const e of wire) if (e.side !== 'C' && SERVER.has(e.kind) && conns.has(e.id)) conns.get(e.id).server.push(e);
const relative = (u) => {
  const x = new URL(u);
  return x.pathname + x.search;
};

let submitted = null;
const submit = new Promise((r) => (submitted = r));
window.send = () => submitted(performance.now());
addEventListener(
  'keydown',
  (e) => {
    if (e.key === 'Enter' && !e.shiftKey) submitted(e.timeStamp);
  },
  true,
);
submit.then((t) => (window.truth.submitAt = t));
// A form's own submission would leave the page (the app's scripts, not replayed, prevent it:
// PyWebIO's input is a form).
addEventListener('submit', (e) => e.preventDefault(), true);

// A request: its response's chunks, counted as they come (by bytes: the network may cut them
// otherwise than the recording did).
async function request(e, ask = false) {
  const c = conns.get(e.id);
  // The truth of the ask is the moment the page hands the request over: stamped right at send()
  // or fetch(), not before this function's own preparation (a collection or a slow moment there
  // once put 9.8 ms between the stamp and the send, against a 5 ms tolerance).
  const sent = () => {
    if (ask) window.truth.askAt = performance.now();
  };
  const body = e.bodyBytes ? b64(e.bodyBytes) : typeof e.body === 'string' ? e.body : null;
  const parts = c.server.filter((x) => x.kind === 'chunk' || x.kind === 'xhr-progress');
  const needs = [];
  let total = 0;
  for (const p of parts) needs.push([(total += p.bytes ? atob(p.bytes).length : new TextEncoder().encode(p.text).length), p]);
  let have = 0;
  const count = (n) => {
    have += n;
    while (needs.length && needs[0][0] <= have) had(needs.shift()[1]);
  };
  if (e.kind === 'xhr') {
    const x = new XMLHttpRequest();
    x.open(e.method || 'GET', relative(e.url));
    let len = 0;
    // Progress events are throttled (50 ms): the text is read at every state change too.
    x.onprogress = x.onreadystatechange = () => {
      if (x.readyState < 3) return;
      const t = new TextEncoder().encode(x.responseText.slice(len)).length;
      len = x.responseText.length;
      count(t);
    };
    x.onload = () => {
      x.onprogress();
      for (const s of c.server) had(s);
    };
    sent();
    x.send(body);
    return;
  }
  sent();
  const res = await fetch(relative(e.url), { method: e.method || 'GET', body: e.method === 'GET' || e.method === 'HEAD' ? undefined : body });
  for (const s of c.server) if (s.kind === 'response') had(s);
  const reader = res.body.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    count(r.value.byteLength);
  }
  for (const s of c.server) had(s);
}

function socket(e) {
  const c = conns.get(e.id);
  const u = new URL(e.url);
  const ws = new WebSocket(`ws://${location.host}${u.pathname}${u.search}`);
  ws.binaryType = 'arraybuffer';
  c.ws = ws;
  c.ready = new Promise((r) => ws.addEventListener('open', r, { once: true }));
  const frames = c.server.filter((x) => x.kind === 'frame');
  let n = 0;
  ws.addEventListener('message', (m) => {
    // How long each frame waited for the app's listener after its event was made (bench/learning.mjs).
    window.truth.heard.push(performance.now() - m.timeStamp);
    const f = frames[n++];
    if (f) had(f);
  });
  ws.addEventListener('close', () => {
    for (const s of c.server) had(s);
  });
}

let beforeDone = () => {};
const pageBefore = new Promise((r) => (beforeDone = r));
async function run() {
  const start = performance.now();
  let prev = null;
  let prevAt = start;
  for (const s of steps) {
    if (s.side === 'S' || (s.kind !== 'dom' && SERVER.has(s.kind))) continue;
    // After the question: the user's submit first.
    if (s.t >= rec.asked) {
      beforeDone();
      await submit;
    }
    // The server's last entry before it, and the page's own last step, each by its gap.
    const before = wire.filter((w) => SERVER.has(w.kind) && w.t <= s.t).pop();
    window.replayStep = `${s.kind} ${s.id} at ${s.t}, after ${before && `${before.kind} ${before.id} at ${before.t}`}`;
    if (before) await got(before);
    let target = prev ? prevAt + (s.t - prev.t) : start;
    if (before) target = Math.max(target, seen.get(before) + (s.t - before.t));
    if (s.t >= rec.asked && window.truth.submitAt !== null) target = Math.max(target, window.truth.submitAt + (s.t - (rec.submitAt || rec.asked)));
    await sleep(target - performance.now());
    prev = s;
    prevAt = performance.now();
    // The request or frame that carried the question (the recording says which): sent now (a
    // request or a frame is stamped at its send).
    const isAsk = rec.ask && s.id === rec.ask.id && s.kind === rec.ask.kind && s.t === rec.ask.t;
    if (isAsk && !['fetch', 'xhr', 'sent'].includes(s.kind)) window.truth.askAt = prevAt;
    if (s.kind === 'dom') {
      for (const op of s.ops) {
        const node = at(op.p);
        if (node) morph(node, op.k);
      }
    } else if (s.kind === 'fetch' || s.kind === 'xhr') request(s, isAsk).catch(() => {});
    else if (s.kind === 'websocket') socket(s);
    else if (s.kind === 'sent') {
      const c = conns.get(s.id);
      await c.ready;
      if (isAsk) window.truth.askAt = performance.now();
      c.ws.send(s.bytes ? b64(s.bytes) : s.text);
    } else if (s.kind === 'closed-by-page') conns.get(s.id).ws.close();
  }
  beforeDone();
  window.replayDone = true;
}

// The page as it was when the question was asked.
document.title = rec.dom.snapshot.title || rec.app;
morph(document.body, rec.dom.snapshot.body.k || []);
watchTruth(document.body);
note();
run();
// Ready once everything before the question has been replayed: what the server sent, and what
// the page sent (the question's text too, where the app sent it while it was typed).
(async () => {
  const before = wire.filter((w) => SERVER.has(w.kind) && w.t < rec.asked);
  for (const b of before) {
    window.replayWaiting = `${b.kind} ${b.id} at ${b.t}`;
    await got(b);
  }
  window.replayWaiting = 'the page\'s own steps before the question';
  await pageBefore;
  window.replayWaiting = null;
  window.replayReady = true;
})();
