// Sampling (issue 17): a page loads tokenpaint either through the stub (tokenpaint/lazy) or the
// full entry, with the sample rate of the query string, then runs a chat answer: the app's own
// fetch (which keeps the response object it got), the bytes it read, and the text it showed.
const q = new URLSearchParams(location.search);
const rate = Number(q.get('rate'));
const entry = q.get('entry') || 'lazy';
const host = document.getElementById('app');

let appResponses = [];
// ?adopt=1: the app's fetch answers only once the stub has loaded the profiler, so that the
// response reaches a stub whose profiler is there (it hands the response over as it is).
let stubReady = null;
const appFetch = async (input, init) => {
  if (q.get('adopt') && stubReady) await stubReady;
  const r = await fetch(input, init);
  appResponses.push(r);
  return r;
};

let profiler;
// Whether the stub has handed over to the profiler it loads (its `ready` resolved).
let loaded = false;
if (entry === 'lazy') {
  const { start } = await import('/js/lazy.js');
  profiler = start({ sampleRate: rate, fetch: appFetch, settleMs: 300 });
  profiler.ready.then(() => (loaded = true));
  stubReady = profiler.ready;
} else {
  const { Profiler } = await import('/js/index.js');
  const srate = q.get('srate');
  profiler = new Profiler({ sampleRate: rate, streamSampleRate: srate === null ? undefined : Number(srate), fetch: appFetch, settleMs: 300 });
}
profiler.observe(host);
const reports = [];
profiler.onReport((r) => reports.push(r));

const URL_ = '/v1/chat/completions?ttft_ms=30&token_ms=15&tokens=30';
const body = () => ({ method: 'POST', body: JSON.stringify({ stream: true, messages: [] }) });

/** Reads `res` as the app does, showing each chunk's text; the bytes it read. */
async function read(res, el) {
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  const parts = [];
  let buf = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(...value);
    // Lines can be cut anywhere between chunks (WebKit hands over small ones): keep the tail.
    const lines = (buf + dec.decode(value, { stream: true })).split('\n');
    buf = lines.pop();
    for (const line of lines) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const t = JSON.parse(line.slice(6)).choices?.[0]?.delta?.content;
      if (t) el.append(t);
    }
  }
  return parts;
}

/** One answer through the profiler; what the app got, and the report if one comes. */
window.runAnswer = async ({ via = 'fetch', waitReport = true } = {}) => {
  appResponses = [];
  const n = reports.length;
  // Whether the stub still had not loaded the profiler when this stream began.
  const early = entry === 'lazy' && profiler.sampled && !loaded;
  const el = document.createElement('div');
  host.append(el);
  let res;
  let identical;
  if (via === 'fetch') {
    res = await profiler.fetch(URL_, body());
    identical = res === appResponses[0];
  } else {
    const own = await fetch(URL_, body());
    res = profiler.track(own);
    identical = res === own;
  }
  const bytes = await read(res, el);
  const plain = await read(await fetch(URL_, body()), document.createElement('div'));
  const sameBytes = bytes.length === plain.length && bytes.every((b, i) => b === plain[i]);
  let report = null;
  if (waitReport) {
    for (let i = 0; i < 100 && reports.length === n; i++) await new Promise((r) => setTimeout(r, 50));
    report = reports[n] || null;
  }
  return { early, identical, sameBytes, bytes: bytes.length, shown: el.textContent.length, report };
};

/** `n` answers at once through profiler.fetch: how many came back as the app's own response. */
window.runMany = async (n) => {
  appResponses = [];
  const before = reports.length;
  const got = await Promise.all(Array.from({ length: n }, () => profiler.fetch(URL_, body())));
  const own = got.filter((r) => appResponses.includes(r)).length;
  await Promise.all(got.map((r) => read(r, host.appendChild(document.createElement('div')))));
  for (let i = 0; i < 60 && reports.length - before < n - own; i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  const mine = reports.slice(before);
  return { own, summaryRate: profiler.summary()?.sampleRate, reports: mine.length, rates: [...new Set(mine.map((r) => r.sampleRate))], ok: mine.filter((r) => r.status === 'ok' && r.deltas === 30).length };
};

/** What the page has loaded and made so far. */
window.loaded = () => ({
  sampled: profiler.sampled,
  sampleRate: profiler.sampleRate,
  // Observers made by tokenpaint's modules (the test driver makes one of its own).
  observers: (window.observerStacks || []).filter((s) => /\/(js|pkg)\//.test(s)).length,
  scripts: performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname),
  reports: profiler.reports().length,
  summary: profiler.summary(),
});

window.idle = () => new Promise((r) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(() => setTimeout(r, 200)) : setTimeout(r, 500)));
window.readyProfiler = async () => !!(await profiler.ready);
// ?early=1: an answer starts as the page loads, before the page is idle.
if (q.get('early') || q.get('adopt')) window.earlyRun = window.runAnswer({ via: 'fetch' });
window.samplingReady = true;
