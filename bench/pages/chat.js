// The reference chat page of the overhead benchmark: what chat apps run for a streamed answer.
// The body is read with a reader and a TextDecoder, split into events by eventsource-parser,
// each event's data parsed with JSON.parse, and every delta appended to the DOM. With
// `profile`, the same page also runs tokenpaint (`profiler.fetch` and `observe`).
import { createParser } from '/node_modules/eventsource-parser/dist/index.js';
import init, { Profiler, wasmMemoryBytes } from '/js/index.js';

// Both variants load the module, so they differ only in profiling.
await init();

/** The reference page's own parsing: decode, split events, JSON.parse, pick the delta. */
function parserFor(onDelta) {
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(e) {
      if (e.data === '[DONE]') return;
      const content = JSON.parse(e.data).choices?.[0]?.delta?.content;
      if (content) onDelta(content);
    },
  });
  return (bytes) => parser.feed(decoder.decode(bytes, { stream: true }));
}

let gate = null;
/** Lets the benchmark measure the page at the end of the body, before the report. */
window.proceed = () => gate && gate();

/** `n` earlier answers of about 2,000 characters each, as a long conversation shows them. */
function earlierAnswers(n) {
  const text = 'An earlier answer, of the sort a chat keeps on screen: a paragraph of prose with a few words more. '.repeat(20);
  return Array.from({ length: n }, (_, i) => {
    const q = document.createElement('div');
    q.textContent = `An earlier question, number ${i + 1}?`;
    const a = document.createElement('div');
    a.innerHTML = `<p>${text}</p>`;
    return [q, a];
  }).flat();
}

window.run = async ({ tokens, tokenMs, profile, hold = false, timeline = false, earlier = 0 }) => {
  const chat = document.getElementById('chat');
  chat.replaceChildren(...earlierAnswers(earlier));
  const out = document.createElement('div');
  chat.append(out);
  const held = chat.textContent.length;
  let report = null;
  let profiler = null;
  if (profile) {
    profiler = new Profiler({ timeline, maxReports: 1 });
    if (profile !== 'no-dom') profiler.observe(chat);
    report = new Promise((resolve) => profiler.onReport(resolve));
  }
  const url = `/v1/chat/completions?ttft_ms=0&token_ms=${tokenMs}&tokens=${tokens}`;
  const init = { method: 'POST', body: JSON.stringify({ stream: true, messages: [] }) };
  const res = profiler ? await profiler.fetch(url, init) : await fetch(url, init);
  let deltas = 0;
  // The page's own parse time, measured where it runs (the page is cross-origin isolated:
  // 5 µs timers); the DOM appends are not in it.
  let parseMs = 0;
  const texts = [];
  const feed = parserFor((text) => texts.push(text));
  const reader = res.body.getReader();
  const start = performance.now();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const t0 = performance.now();
    feed(value);
    parseMs += performance.now() - t0;
    for (const text of texts) out.append(text);
    deltas += texts.length;
    texts.length = 0;
  }
  const ms = performance.now() - start;
  if (hold) {
    window.readDone = true;
    await new Promise((resolve) => (gate = resolve));
    window.readDone = false;
  }
  const r = report ? await report : null;
  if (profiler) profiler.disconnect();
  return {
    tp: globalThis.__tp, iso: crossOriginIsolated,
    held,
    deltas,
    ms,
    parseMs,
    wasm: wasmMemoryBytes(),
    report: r && { status: r.status, deltas: r.deltas, matchedPct: r.matchedPct, records: r.detail.records },
  };
};

/** Long animation frames (Chromium): every one of 50 ms or more the page has had. */
window.loafs = [];
if (PerformanceObserver.supportedEntryTypes.includes('long-animation-frame')) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.loafs.push({ start: e.startTime, duration: e.duration, scripts: e.scripts.map((x) => ({ duration: x.duration, url: x.sourceURL, fn: x.sourceFunctionName, invoker: x.invoker })) });
    }
  }).observe({ type: 'long-animation-frame' });
}

/** `n` answers of `tokens` tokens each through push handles, then `summary()`: its time. */
window.manyReports = async ({ n, tokens }) => {
  const profiler = new Profiler({ timeline: false, maxReports: n });
  const sse = Array.from({ length: tokens }, (_, i) => `data: {"choices":[{"delta":{"content":"w${i} "}}]}\n\n`).join('') + 'data: [DONE]\n\n';
  for (let i = 0; i < n; i++) {
    const h = profiler.stream({ url: `/v1/chat/completions/${i % 40}`, label: `model-${i % 8}` });
    h.chunk(sse);
    h.end();
    if (i % 50 === 49) await new Promise((r) => setTimeout(r, 0));
  }
  for (let i = 0; i < 600 && profiler.reports().length < n; i++) await new Promise((r) => setTimeout(r, 50));
  const reports = profiler.reports().length;
  const at = performance.now();
  const summary = profiler.summary();
  const summaryMs = performance.now() - at;
  profiler.close();
  return { reports, summaryMs, at, count: summary && summary.count };
};
