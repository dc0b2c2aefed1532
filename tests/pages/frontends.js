// Chat pages built the ways real frontends are, for the page tests of issue 13: a chat web
// component whose text lives in (nested, late-attached, or closed) shadow roots; an app that
// hands each chunk's buffer to a worker; a page busy for 30 ms after each commit; the
// observe → disconnect → observe sequence of React StrictMode. Each page records its own truth:
// when its reader got each delta and when the DOM change that shows it was made.
import init, { Profiler } from '/js/index.js';
import { inside } from '/js/profiler.js';
import { deltas, median, paintTruth } from '/tests/pages/deltas.js';

await init();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// --- a chat web component --------------------------------------------------------------------

// <tp-chat> keeps its message list in its own shadow root; each <tp-message> shows its text in
// a shadow root of its own (nested), as Lit-based chat widgets do. `mode` is the shadow roots'
// mode; `late`: the component attaches its root a while after it is connected.
class TpMessage extends HTMLElement {
  connectedCallback() {
    if (this.body) return;
    const root = this.attachShadow({ mode: this.getAttribute('mode') || 'open' });
    this.body = document.createElement('p');
    root.append(this.body);
  }
  push(text) {
    this.body.append(text);
  }
}
class TpChat extends HTMLElement {
  connectedCallback() {
    const attach = () => {
      this.root = this.attachShadow({ mode: this.getAttribute('mode') || 'open' });
      this.list = document.createElement('div');
      this.root.append(this.list);
    };
    if (this.hasAttribute('late')) this.ready = sleep(300).then(attach);
    else this.ready = Promise.resolve(attach());
  }
  async add(mode) {
    await this.ready;
    const m = document.createElement('tp-message');
    m.setAttribute('mode', mode);
    this.list.append(m);
    return m;
  }
}
customElements.define('tp-message', TpMessage);
customElements.define('tp-chat', TpChat);

/**
 * Streams one answer into a <tp-chat> observed by the profiler, rendering each delta `delay` ms
 * after it arrives. Resolves to { report, truth } (truth: the median of commit − arrival).
 */
window.runComponent = async ({ query = 'ttft_ms=50&token_ms=20&tokens=40', mode = 'open', late = false, delay = 30 }) => {
  const host = document.getElementById('app');
  host.replaceChildren();
  const chat = document.createElement('tp-chat');
  chat.setAttribute('mode', mode);
  if (late) chat.setAttribute('late', '');
  host.append(chat);
  const profiler = new Profiler();
  profiler.observe(chat);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const msg = await chat.add(mode);
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  const lags = [];
  const painted = paintTruth();
  const pending = [];
  for await (const { content, t } of deltas(res.body)) {
    pending.push(
      sleep(delay).then(() => {
        msg.push(content);
        lags.push(performance.now() - t);
        painted.mark(t);
      }),
    );
  }
  await Promise.all(pending);
  const r = await report;
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return { report: r, truth: median(lags), paintTruth: { p50: painted.median() } };
};

// --- a worker that takes each chunk's buffer ------------------------------------------------

const WORKER = `
const decoder = new TextDecoder();
let buf = '';
onmessage = (e) => {
  buf += decoder.decode(new Uint8Array(e.data.buffer), { stream: true });
  const events = buf.split('\\n\\n');
  buf = events.pop();
  const out = [];
  for (const ev of events) {
    const data = ev.startsWith('data: ') ? ev.slice(6) : null;
    if (!data || data === '[DONE]') continue;
    const c = JSON.parse(data).choices?.[0]?.delta?.content;
    if (c) out.push(c);
  }
  postMessage({ out, t: e.data.t });
};`;

/**
 * The app reads the body and transfers each chunk's buffer to a worker (detaching it here), which
 * parses it and posts the text back; the page shows it. Resolves to { report, truth, sent, shown }.
 */
window.runWorker = async ({ query = 'ttft_ms=50&token_ms=20&tokens=60' } = {}) => {
  const host = document.getElementById('app');
  host.replaceChildren();
  const out = document.createElement('div');
  host.append(out);
  const worker = new Worker(URL.createObjectURL(new Blob([WORKER], { type: 'text/javascript' })));
  const lags = [];
  // The page's own paint truth: the frame after each commit (a loaded machine's frames come late).
  const painted = paintTruth();
  worker.onmessage = (e) => {
    for (const c of e.data.out) out.append(c);
    lags.push(performance.now() - e.data.t);
    painted.mark(e.data.t);
  };
  const profiler = new Profiler();
  profiler.observe(host);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  const reader = res.body.getReader();
  let bytes = 0;
  let detached = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    worker.postMessage({ buffer: value.buffer, t: performance.now() }, [value.buffer]);
    if (value.byteLength === 0) detached++;
  }
  const r = await report;
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  worker.terminate();
  return { report: r, truth: median(lags), paintTruth: { p50: painted.median() }, bytes, detached, shown: out.textContent.length };
};

// --- a page with a busy task queued between commits ---------------------------------------------

/**
 * A page rendered by a scheduler, as React's is: an animation-frame loop (running before the
 * stream starts, so its callback comes first in each frame) hands the waiting text to a task
 * (posted over a MessageChannel, as React's scheduler does), which commits it and queues a
 * `busyMs` task after it (a highlight pass, an analytics flush). Each commit thus lands after its
 * frame's rendering, and the next frame comes only after the busy task. The page's truth for a
 * delta is its own requestAnimationFrame callback requested at the commit: that frame paints it.
 */
window.runBusy = async ({ query = 'ttft_ms=50&token_ms=50&tokens=50', busyMs = 30, postTask = true } = {}) => {
  // Without scheduler.postTask (Firefox, WebKit), the paint clock uses a MessageChannel and the
  // ResizeObserver rendering cutoff: hide it to test that path here.
  const saved = Object.getOwnPropertyDescriptor(window, 'scheduler');
  if (!postTask) Object.defineProperty(window, 'scheduler', { value: undefined, configurable: true });
  const host = document.getElementById('app');
  host.replaceChildren();
  const out = document.createElement('div');
  host.append(out);
  const waiting = [];
  const lags = [];
  const frames = [];
  const busy = new MessageChannel();
  busy.port1.onmessage = () => {
    const until = performance.now() + busyMs;
    while (performance.now() < until) {
      /* busy */
    }
  };
  const work = new MessageChannel();
  work.port1.onmessage = () => {
    const batch = waiting.splice(0);
    for (const { content } of batch) out.append(content);
    const committed = batch.map((b) => b.t);
    frames.push(new Promise((r) => requestAnimationFrame(() => r(lags.push(...committed.map((t) => performance.now() - t))))));
    busy.port2.postMessage(0);
  };
  let running = true;
  const loop = () => {
    if (waiting.length) work.port2.postMessage(0);
    if (running) requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  await new Promise((r) => requestAnimationFrame(r));
  const profiler = new Profiler();
  if (!postTask) {
    if (saved) Object.defineProperty(window, 'scheduler', saved);
    else delete window.scheduler;
  }
  profiler.observe(host);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  for await (const d of deltas(res.body)) waiting.push(d);
  while (waiting.length) await new Promise((r) => setTimeout(r, 20));
  await Promise.all(frames);
  const r = await report;
  running = false;
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return { report: r, truth: median(lags) };
};

// --- the lifecycle of a React StrictMode effect, without React ----------------------------------

/**
 * observe → disconnect → observe (what StrictMode does with an effect that observes and
 * disconnects in its cleanup), then one answer rendered `delay` ms after arrival.
 */
window.runLifecycle = async ({ sequence = ['observe', 'disconnect', 'observe'], delay = 30 } = {}) => {
  const host = document.getElementById('app');
  host.replaceChildren();
  const out = document.createElement('div');
  host.append(out);
  const profiler = new Profiler();
  for (const step of sequence) profiler[step](host);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const res = await profiler.fetch('/v1/chat/completions?ttft_ms=50&token_ms=20&tokens=40', { method: 'POST', body: '{}' });
  const lags = [];
  const pending = [];
  for await (const { content, t } of deltas(res.body)) {
    pending.push(
      sleep(delay).then(() => {
        out.append(content);
        lags.push(performance.now() - t);
      }),
    );
  }
  await Promise.all(pending);
  const r = await report;
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return { report: r, truth: median(lags) };
};

// --- a response handed to track() without a start ------------------------------------------------

/** The app fetches by itself and hands the response to `track` without saying when it started. */
window.runTrack = async ({ query = 'headers_ms=150&ttft_ms=50&token_ms=10&tokens=20' } = {}) => {
  const host = document.getElementById('app');
  host.replaceChildren();
  const out = document.createElement('div');
  host.append(out);
  const profiler = new Profiler();
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const t0 = performance.now();
  const raw = await fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  const res = profiler.track(raw, { target: out });
  for await (const { content } of deltas(res.body)) out.append(content);
  const r = await report;
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return { report: r, t0 };
};

// --- more streams than HTTP/1.1 connections ----------------------------------------------------

/**
 * `n` streams at once to one HTTP/1.1 host (browsers open at most 6 connections per host): the
 * last ones wait in the browser before they are sent. Each is read to its end without rendering.
 */
window.runQueued = async ({ n = 8, query = 'ttft_ms=100&token_ms=10&tokens=60&metrics=vllm' } = {}) => {
  const profiler = new Profiler();
  const reports = [];
  const all = new Promise((resolve) => profiler.onReport((r) => reports.push(r) === n && resolve()));
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await profiler.fetch(`/v1/chat/completions?${query}&seed=${i + 1}`, { method: 'POST', body: '{}' });
      await res.arrayBuffer();
    }),
  );
  await all;
  const summary = profiler.summary();
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return { reports, summary };
};

/** One answer appended as it comes, with a `busyMs` loop at `busyAt` ms: late paints. */
window.runLate = async ({ busyAt = 300, busyMs = 200, options = { lateMs: 100, timeline: true } } = {}) => {
  const host = document.getElementById('app');
  host.replaceChildren();
  const out = document.createElement('div');
  host.append(out);
  const profiler = new Profiler(options);
  profiler.observe(host);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const t0 = performance.now();
  const res = await profiler.fetch('/v1/chat/completions?ttft_ms=20&token_ms=15&tokens=60', { method: 'POST', body: '{}' });
  // The page's own record of when it was busy (absolute ms).
  let busy = null;
  for await (const { content } of deltas(res.body)) {
    setTimeout(() => out.append(content), 50);
    if (!busy && performance.now() - t0 > busyAt) {
      busy = [NaN, NaN];
      setTimeout(() => {
        busy[0] = performance.now();
        const until = busy[0] + busyMs;
        while (performance.now() < until) {
          /* busy */
        }
        busy[1] = performance.now();
      }, 0);
    }
  }
  const r = await report;
  const summary = profiler.summary();
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return { report: r, summary, busy };
};

// --- an answer shown in a cross-origin frame --------------------------------------------------

/** The host streams and posts each delta to a widget in a frame of another origin. */
window.runFrame = async ({ src, query = 'ttft_ms=50&token_ms=20&tokens=30' }) => {
  const host = document.getElementById('app');
  host.replaceChildren();
  const frame = document.createElement('iframe');
  frame.src = src;
  await new Promise((r) => {
    frame.onload = r;
    host.append(frame);
  });
  const profiler = new Profiler();
  profiler.observe(host);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  for await (const { content } of deltas(res.body)) frame.contentWindow.postMessage(content, '*');
  const r = await report;
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return r;
};

// --- reports of every status, for the type drift test ----------------------------------------------

/** One report per status the core writes, one `failed` report, and the summary. */
window.everyStatus = async (options = {}) => {
  const host = document.getElementById('app');
  host.replaceChildren();
  const profiler = new Profiler({ includeText: true, saveTimeline: true, ...options });
  profiler.observe(host);
  const out = [];
  const run = async (query, { render = true, abort = false } = {}) => {
    const el = document.createElement('div');
    host.append(el);
    const report = new Promise((resolve) => {
      const off = profiler.onReport((r) => (off(), resolve(r)));
    });
    const ctrl = new AbortController();
    try {
      const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}', signal: ctrl.signal });
      if (abort) setTimeout(() => ctrl.abort(), 150);
      for await (const { content } of deltas(res.body)) if (render) el.append(content);
    } catch {
      /* aborted, or an HTTP error body that is no stream */
    }
    out.push(await report);
  };
  await run('ttft_ms=20&token_ms=10&tokens=20&metrics=vllm&reasoning=3');
  await run('status=500&ttft_ms=10');
  await run('ttft_ms=20&token_ms=20&tokens=100', { abort: true });
  await run('ttft_ms=20&token_ms=5&tokens=30&end_after=10');
  await run('empty=1');
  await run('ttft_ms=10&token_ms=5&tokens=20&server_hold=1', { render: false });
  // A panic inside the core: the report is `failed` (the test hook arms it).
  const failed = new Promise((resolve) => {
    const off = profiler.onReport((r) => (off(), resolve(r)));
  });
  const res = await profiler.fetch('/v1/chat/completions?body_bytes=20000&seed=5', { method: 'POST', body: '{}' });
  inside(profiler).link.core.arm_test_trap([...inside(profiler).streams][0].id);
  await res.arrayBuffer();
  out.push(await failed);
  await run('ttft_ms=10&token_ms=5&tokens=10');
  const summary = profiler.summary();
  (profiler.close || profiler.disconnect).call(profiler); // close() is new in issue 13
  return { reports: out, summary };
};

window.frontendsReady = true;
