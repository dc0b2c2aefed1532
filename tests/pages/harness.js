// A minimal chat app for the page tests: streams from the simulated server and renders with a
// chosen strategy, the way real chat UIs do. Only `profiler.fetch`/`track` connect it to
// tokenpaint.
import init, { Profiler } from '/js/index.js';
import { median, paintTruth } from '/tests/pages/deltas.js';

await init();

/** Yields the data of each SSE event of a body (the app's own parser, not tokenpaint's). */
async function* sseData(body, hold = {}) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  hold.reader = reader;
  let buf = '';
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += value;
    const lines = buf.split(/\r\n|\r|\n/);
    buf = lines.pop();
    for (const line of lines) {
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
  }
}

/**
 * Streams one answer and resolves to its report.
 * render: immediate | delay | end | rerender; delay: ms; via: fetch | track; abortAfter: ms until
 * the request's signal aborts; cancelAfter: deltas until the app cancels its reader (a Stop
 * button that cancels the body, as the Vercel AI SDK does).
 */
window.runStream = async ({ query, render = 'immediate', delay = 0, cost = 0, via = 'fetch', abortAfter = 0, cancelAfter = 0, paintTruth: withPaint = false, options = {} }) => {
  const painted = withPaint ? paintTruth() : null;
  // The browser's own record of the user's interactions meanwhile (the input tests' truth).
  const interactions = [];
  // Each as [start, end]: those that ended before the report was made are the ones it can hold.
  const events = typeof PerformanceObserver === 'function' && PerformanceObserver.supportedEntryTypes.includes('event') ? new PerformanceObserver((l) => interactions.push(...l.getEntries().filter((e) => e.interactionId).map((e) => [e.startTime, e.startTime + e.duration, e.interactionId]))) : null;
  events?.observe({ type: 'event', durationThreshold: 16 });
  const chat = document.getElementById('chat');
  const profiler = new Profiler(options);
  if (via === 'fetch') profiler.observe(chat);
  let reportedAt = null;
  const report = new Promise((resolve) =>
    profiler.onReport((r) => {
      reportedAt = performance.now();
      resolve(r);
    }),
  );
  const user = document.createElement('div');
  user.className = 'msg user';
  user.textContent = 'Tell me something';
  chat.append(user);
  const out = document.createElement('div');
  out.className = 'msg assistant';
  chat.append(out);
  const ctrl = new AbortController();
  const url = `/v1/chat/completions?${query}`;
  const init = { method: 'POST', body: JSON.stringify({ model: 'tokenpaint-sim', stream: true, messages: [] }), signal: ctrl.signal };
  let res;
  if (via === 'track') {
    const start = performance.now();
    res = profiler.track(await fetch(url, init), { target: out, start });
  } else {
    res = await profiler.fetch(url, init);
  }
  if (abortAfter) setTimeout(() => ctrl.abort(), abortAfter);
  let text = '';
  const pending = [];
  const hold = {};
  let seen = 0;
  // `deferred`: the page updates only once no delta has come for `delay` ms (a debounce, as a
  // low-priority update that every new delta interrupts): the text waits, then shows in a step.
  let debounce = null;
  let unshown = [];
  let flushed = null;
  // When the page read each content delta: its own arrivals, the truth for TTFT and TPOT (the
  // tap stamps a chunk before the page's read gets it).
  const reads = [];
  try {
    for await (const data of sseData(res.body, hold)) {
      if (data === '[DONE]') break;
      const content = JSON.parse(data).choices?.[0]?.delta?.content;
      if (!content) continue;
      if (cancelAfter && seen++ === cancelAfter) {
        await hold.reader.cancel('stopped by the user');
        break;
      }
      text += content;
      const got = performance.now();
      reads.push(got);
      if (render === 'immediate') out.append(content);
      else if (render === 'rerender') out.textContent = text;
      // A render that costs `cost` ms (a whole-message markdown and highlight pass).
      if (cost) for (const until = performance.now() + cost; performance.now() < until; );
      if (painted && (render === 'immediate' || render === 'rerender')) painted.mark(got);
      else if (render === 'deferred') {
        unshown.push(got);
        clearTimeout(debounce);
        flushed = new Promise((r) => {
          debounce = setTimeout(() => {
            out.textContent = text;
            for (const g of unshown) painted?.mark(g);
            unshown = [];
            r();
          }, delay);
        });
      } else if (render === 'delay') {
        pending.push(
          new Promise((r) =>
            setTimeout(() => {
              out.append(content);
              painted?.mark(got);
              r();
            }, delay),
          ),
        );
      }
    }
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  }
  // The page's own truth for a render at the end: when it committed, and the timestamp of the
  // frame it asked for right after (the frame that shows the answer).
  let truth = null;
  if (render === 'end') {
    out.textContent = text;
    const commit = performance.now();
    const frame = await new Promise((r) => requestAnimationFrame(r));
    truth = { commit, frame };
  }
  await Promise.all(pending);
  if (flushed) await flushed;
  const r = await report;
  profiler.disconnect();
  if (truth) r.truth = { commit: truth.commit - r.startTime, frame: truth.frame - r.startTime };
  // The page's own TTFT (request start → its read of the first content), TPOT and median gap
  // between reads.
  const gaps = reads.slice(1).map((t, i) => t - reads[i]);
  r.readTruth = reads.length ? { ttft: reads[0] - r.startTime, tpot: gaps.length ? (reads[reads.length - 1] - reads[0]) / gaps.length : null, itlP50: gaps.length ? median(gaps) : null } : null;
  if (events) {
    for (const e of events.takeRecords()) if (e.interactionId) interactions.push([e.startTime, e.startTime + e.duration, e.interactionId]);
    events.disconnect();
    const kept = interactions.filter(([start, end]) => start >= r.startTime && end <= reportedAt);
    const held = kept.map(([start, end]) => end - start);
    r.inputTruth = held.length ? Math.max(...held) : null;
    // The browser's interactions (one per interactionId: a key's keydown, keypress and keyup).
    r.inputTruthCount = new Set(kept.map((k) => k[2])).size;
  }
  if (painted) {
    await new Promise((res) => setTimeout(res, 50));
    r.paintTruth = painted.median();
    r.paintTruthMax = painted.quantile(1);
  }
  return r;
};

/** Fetches `query` with and without the profiler; returns both hashes and the server's. */
window.hashStream = async (query) => {
  const hex = async (buf) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', buf))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const url = `/v1/chat/completions?${query}`;
  const profiler = new Profiler();
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const res = await profiler.fetch(url, { method: 'POST', body: '{}' });
  const viaProfiler = await hex(await res.arrayBuffer());
  const plain = await fetch(url, { method: 'POST', body: '{}' });
  const direct = await hex(await plain.arrayBuffer());
  const r = await report;
  return {
    server: res.headers.get('x-body-sha256'),
    length: Number(res.headers.get('x-body-length')),
    events: Number(res.headers.get('x-body-events')),
    viaProfiler,
    direct,
    report: { bytes: r.bytes, deltas: r.deltas, status: r.status, format: r.format, malformed: r.malformed },
  };
};

/**
 * Streams `query` (SSE or NDJSON), rendering each answer delta at once into a new bubble of the
 * observed chat; resolves to { report, raw } with the raw body text, so that a test can read
 * what the server sent without tokenpaint.
 */
window.runPhases = async (query) => {
  const chat = document.getElementById('chat');
  const profiler = new Profiler();
  profiler.observe(chat);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const out = document.createElement('div');
  out.className = 'msg assistant';
  chat.append(out);
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let raw = '';
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    raw += value;
    buf += value;
    const lines = buf.split('\n');
    buf = lines.pop();
    for (const line of lines) {
      const json = line.startsWith('data: {') ? line.slice(6) : line.startsWith('{') ? line : null;
      if (!json) continue;
      const o = JSON.parse(json);
      const piece = o.choices?.[0]?.delta?.content ?? o.response;
      if (piece) out.append(piece);
    }
  }
  const r = await report;
  profiler.disconnect();
  return { report: r, raw };
};

/**
 * `n` streams at once, one profiler observing one container, each rendered into its own bubble.
 * Each stream's answer has its own length (tokens = 10 + i), so reports map to streams by it.
 */
window.runConcurrentMany = async (n) => {
  const root = document.getElementById('chat');
  const profiler = new Profiler();
  profiler.observe(root);
  const got = [];
  const all = new Promise((resolve) => profiler.onReport((r) => got.push(r) === n && resolve()));
  const lengths = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const out = document.createElement('div');
      out.className = 'msg assistant';
      root.append(out);
      const res = await profiler.fetch(`/v1/chat/completions?ttft_ms=10&token_ms=5&tokens=${10 + i}&seed=${100 + i}`, { method: 'POST', body: '{}' });
      let text = '';
      for await (const data of sseData(res.body)) {
        if (data === '[DONE]') break;
        const piece = JSON.parse(data).choices?.[0]?.delta?.content;
        if (piece) {
          text += piece;
          out.append(piece);
        }
      }
      return [...text].length;
    }),
  );
  await all;
  profiler.disconnect();
  return lengths.map((length) => ({ length, report: got.find((r) => r.chars === length) }));
};

/**
 * Three streams from another origin (localhost instead of 127.0.0.1: CORS allows it): without
 * Timing-Allow-Origin, with it, and without it but with a Server-Timing header exposed by CORS.
 * Resolves to what each report lists as unavailable, and its server timings.
 */
window.crossOrigin = async () => {
  const { Profiler } = await import('/js/index.js');
  const other = location.origin.replace('127.0.0.1', 'localhost');
  const one = async (query) => {
    const p = new Profiler();
    const report = new Promise((resolve) => p.onReport(resolve));
    const res = await p.fetch(`${other}/v1/chat/completions?ttft_ms=20&token_ms=5&tokens=10&${query}`, { method: 'POST', body: '{}' });
    await res.text();
    const r = await report;
    p.close();
    return { unavailable: r.unavailable, serverTimings: r.serverTimings, firstByte: r.resourceTiming ? r.resourceTiming.responseStart : undefined };
  };
  return { withheld: await one(''), allowed: await one('tao=1'), exposed: await one('server_timing=header') };
};

window.harnessReady = true;
