// The opt-in arrival clock (issue 30): the app registers tokenpaint's service worker, which
// stamps each chunk off the main thread; a busy loop on the page delays its reads. The page
// records its own truth: when its busy loop ran, the bytes it received and when it read each
// delta.
import init, { Profiler } from '/js/index.js';

await init();

/** Registers the worker for the whole origin and waits until it controls this page. */
window.registerArrivalClock = async () => {
  const sw = navigator.serviceWorker;
  await sw.register('/js/arrival-sw.js?match=/v1/chat/completions', { scope: '/' });
  await sw.ready;
  if (!sw.controller) await new Promise((r) => sw.addEventListener('controllerchange', r, { once: true }));
  return Boolean(sw.controller);
};

window.runArrival = async ({ query, clock, busyAt = 0, busyMs = 0 }) => {
  const chat = document.getElementById('chat');
  chat.replaceChildren();
  const profiler = new Profiler({ arrivalClock: clock });
  profiler.observe(chat);
  const out = document.createElement('div');
  chat.append(out);
  const report = new Promise((r) => profiler.onReport(r));
  const busy = [];
  if (busyAt) {
    setTimeout(function busyLoop() {
      const from = performance.now();
      while (performance.now() < from + busyMs) {
        /* the page is busy */
      }
      busy.push(from, performance.now());
    }, busyAt);
  }
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  const stamped = res.headers.get('x-tokenpaint-arrival');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let raw = '';
  let buf = '';
  // The page's own truth of when it read each delta (the read that handed it its bytes).
  const reads = [];
  for (;;) {
    const { value, done } = await reader.read();
    const at = performance.now();
    if (done) break;
    const text = decoder.decode(value, { stream: true });
    raw += text;
    buf += text;
    const lines = buf.split('\n');
    buf = lines.pop();
    for (const line of lines) {
      if (!line.startsWith('data: {')) continue;
      const piece = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
      if (piece) {
        out.append(piece);
        reads.push(at);
      }
    }
  }
  const r = await report;
  profiler.disconnect();
  return { report: r, raw, stamped: Boolean(stamped), reads: reads.map((t) => t - r.startTime), busy: busy.length ? [busy[0] - r.startTime, busy[1] - r.startTime] : null };
};

window.arrivalReady = true;
