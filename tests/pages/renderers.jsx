// A chat app with real renderers (marked, markdown-it, react-markdown, HTML-escaped text, plain
// text nodes) and real delivery strategies (per token after a delay, throttled, typewriter,
// buffered until the end). It records its own ground truth: when each piece of text arrived in
// the app and when each DOM update that showed it was committed. Bundled by esbuild in the tests.
import { marked } from 'marked';
import MarkdownIt from 'markdown-it';
import hljs from 'highlight.js/lib/core';
import javascript from 'highlight.js/lib/languages/javascript';
import React, { useLayoutEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import Markdown from 'react-markdown';
import init, { Profiler } from '/js/index.js';

await init();
const md = new MarkdownIt();
hljs.registerLanguage('javascript', javascript);
hljs.registerAliases(['js'], { languageName: 'javascript' });
// markdown-it with a real syntax highlighter, as chat apps render code blocks.
const mdHighlighted = new MarkdownIt({
  highlight: (code, lang) => (lang && hljs.getLanguage(lang) ? hljs.highlight(code, { language: lang }).value : ''),
});
const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// The earlier answers of the conversation in the container: { el, source (their markdown) }.
let earlier = [];
// What re-rendering them cost the app, per render call (ms): its own truth.
let earlierCost = [];

/**
 * Fills `root` with `turns` earlier turns of the conversation: a question and, as its answer,
 * the simulator's answer to `query`. The first is streamed and rendered by `kind` in the empty
 * container, profiled (the page's answer in a short conversation); the others are copies of
 * it, as a chat shows its history. Resolves when the first one's report is out.
 */
async function history(root, turns, query, kind, profiler, reported) {
  root.replaceChildren();
  earlier = [];
  const source = [];
  for (let i = 0; i < turns; i++) {
    const q = document.createElement('div');
    q.className = 'msg user';
    q.textContent = `An earlier question, number ${i + 1}?`;
    const a = document.createElement('div');
    a.className = 'msg assistant';
    root.append(q, a);
    if (i === 0) {
      const show = renderer(kind, a, () => {});
      const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
      for await (const data of sseData(res.body)) {
        if (data !== '[DONE]') source.push(JSON.parse(data).choices?.[0]?.delta?.content ?? '');
        show(source.join(''));
      }
      await reported(1);
    } else a.innerHTML = mdHighlighted.render(source.join(''));
    earlier.push({ el: a, source: source.join('') });
  }
  earlierCost = [];
}

/** Renderers: `show(el, text)` puts the whole text so far on screen; `commit(length)` is called
 * when it is committed to the DOM. */
function renderer(kind, el, commit) {
  switch (kind) {
    case 'text': {
      let shown = 0;
      return (text) => {
        el.append(text.slice(shown)); // append only what is new
        shown = text.length;
        commit(text.length);
      };
    }
    case 'escaped':
      return (text) => {
        el.innerHTML = escape(text); // whitespace collapses under white-space: normal
        commit(text.length);
      };
    case 'marked':
      return (text) => {
        el.innerHTML = marked.parse(text);
        commit(text.length);
      };
    case 'markdown-it':
      return (text) => {
        el.innerHTML = md.render(text);
        commit(text.length);
      };
    case 'markdown-highlighter':
      // Markdown rendered, then highlighted by the page's own highlighter script
      // (highlighter.js, loaded apart) in a task after each change.
      return (text) => {
        el.innerHTML = md.render(text);
        commit(text.length);
        window.highlightSoon(el);
      };
    case 'markdown-hljs':
      // The whole answer re-rendered and re-highlighted on every delta: the cost grows with
      // the answer, and the main thread falls seconds behind.
      return (text) => {
        el.innerHTML = mdHighlighted.render(text);
        commit(text.length);
      };
    case 'conversation-hljs':
      // The whole conversation re-rendered on every delta, as a message list that does not
      // memoize its finished messages: the earlier answers are rendered and highlighted again
      // with each piece of the new one.
      return (text) => {
        const t0 = performance.now();
        for (const m of earlier) m.el.innerHTML = mdHighlighted.render(m.source);
        earlierCost.push(performance.now() - t0);
        el.innerHTML = mdHighlighted.render(text);
        commit(text.length);
      };
    case 'react-markdown': {
      const api = {};
      function Answer() {
        const [text, setText] = useState('');
        api.set = setText;
        useLayoutEffect(() => {
          if (text) commit(text.length);
        }, [text]);
        return <Markdown>{text}</Markdown>;
      }
      createRoot(el).render(<Answer />);
      return (text) => api.set && api.set(text);
    }
    default:
      throw new Error(`unknown renderer ${kind}`);
  }
}

/** Delivery strategies: when the app calls `show` with the text so far. */
function strategy(kind, show, { delay = 0, interval = 50, cps = 200 }) {
  let text = '';
  switch (kind) {
    case 'per-token':
      return {
        push(piece) {
          text += piece;
          const now = text;
          if (delay) setTimeout(() => show(now), delay);
          else show(now);
        },
        end: () => new Promise((r) => setTimeout(r, delay + 5)),
      };
    case 'throttled': {
      // Like the Vercel AI SDK's experimental_throttle: at most one update per interval.
      let shown = '';
      const timer = setInterval(() => {
        if (text !== shown) show((shown = text));
      }, interval);
      return {
        push(piece) {
          text += piece;
        },
        end: () =>
          new Promise((r) =>
            setTimeout(() => {
              clearInterval(timer);
              if (text !== shown) show(text);
              r();
            }, interval),
          ),
      };
    }
    case 'smoothed': {
      // A typewriter revealing `cps` characters per second, slower than arrival.
      let shown = 0;
      let done = null;
      const t0 = performance.now();
      const tick = () => {
        const want = Math.min(text.length, Math.floor(((performance.now() - t0) * cps) / 1000));
        if (want > shown) {
          // Never cut a surrogate pair.
          shown = want;
          if (/[\ud800-\udbff]/.test(text[shown - 1] || '')) shown++;
          show(text.slice(0, shown));
        }
        if (done && shown >= text.length) done();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      return {
        push(piece) {
          text += piece;
        },
        end: () => new Promise((r) => (done = r)),
      };
    }
    case 'buffered':
      return {
        push(piece) {
          text += piece;
        },
        end: async () => show(text),
      };
    default:
      throw new Error(`unknown strategy ${kind}`);
  }
}

let lastRead = NaN;
async function* sseData(body) {
  // Bytes decoded in the same microtask as the read: a TextDecoderStream pipe would add task
  // hops that delay the app's own arrival stamp (the truth) under load.
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let data = [];
  for (;;) {
    const { value, done } = await reader.read();
    // The app's own arrival stamp is its read, not when its loop reached the event: a busy
    // app takes a while to get through what one read returned.
    lastRead = performance.now();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
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

/** The interpolated quantile of the known values (as the core's). */
const quantile = (v, q) => {
  const s = v.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const at = q * (s.length - 1);
  const lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
};

const median = (v) => {
  const s = v.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The least-squares slope of render cost over characters shown (ms per 1,000 characters). */
const slope = (points) => {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx > 0 ? (1000 * sxy) / sxx : null;
};

/**
 * Streams one answer with `renderer` and `strategy`; resolves to { report, truth }: truth is the
 * app's own median of (commit time − arrival time) over the pieces of text.
 */
window.runRenderer = async ({ renderer: kind, strategy: how, query, delay, interval, cps, container = 'chat', busyAt, busyMs, replaceAt, paintTruth = false, turns = 0, options = {} }) => {
  const root = document.getElementById(container);
  const profiler = new Profiler(options);
  profiler.observe(root);
  // The reports, in order; reported(n) resolves once there are n.
  const reports = [];
  let wake = () => {};
  profiler.onReport((r) => (reports.push(r), wake()));
  const reported = async (n) => {
    while (reports.length < n) await new Promise((r) => (wake = r));
    return reports[n - 1];
  };
  // Earlier turns of the conversation first, with the same answer as this one.
  if (turns) await history(root, turns, query, kind, profiler, reported);
  else earlier = [];
  const user = document.createElement('div');
  user.className = 'msg user';
  user.textContent = 'Explain streaming latency';
  root.append(user);
  const out = document.createElement('div');
  out.className = 'msg assistant';
  root.append(out);
  const arrivals = []; // [time, cumulative length]
  const commits = []; // [time, length shown, painted]
  // With `paintTruth`, the app's own paint truth: after a commit, the next frame's rAF callback, then a task
  // posted from it, which runs once that frame's rendering is done: at user-blocking priority
  // where the scheduler exists (Chromium), so that none of the app's own queued tasks (a long
  // render of the next read) runs first and makes the mark late; else a message.
  let waiting = [];
  let framed = [];
  const marked = () => {
    const t = performance.now();
    for (const c of framed) c[2] = t;
    framed = [];
  };
  const paintChannel = new MessageChannel();
  paintChannel.port1.onmessage = marked;
  const postMark = globalThis.scheduler?.postTask ? () => scheduler.postTask(marked, { priority: 'user-blocking' }) : () => paintChannel.port2.postMessage(0);
  let commit = (len) => {
    const c = [performance.now(), len, null];
    commits.push(c);
    if (!waiting.length) {
      requestAnimationFrame(() => {
        framed = framed.concat(waiting);
        waiting = [];
        postMark();
      });
    }
    waiting.push(c);
  };
  if (!paintTruth) commit = (len) => commits.push([performance.now(), len, null]);
  let current = renderer(kind, out, commit);
  let el = out;
  // The app's own cost of each render call: [characters shown, ms].
  const renders = [];
  const s = strategy(how, (text) => {
    const t0 = performance.now();
    current(text);
    renders.push([text.length, performance.now() - t0]);
  }, { delay, interval, cps });
  // When the busy loop ran, as the page saw it (its truth for the late paints it causes).
  let busy = null;
  if (busyAt) setTimeout(function busyLoop() {
    const from = performance.now();
    const until = from + busyMs;
    while (performance.now() < until) { /* the page is busy */ }
    busy = [from, performance.now()];
  }, busyAt);
  // What the container holds before the answer: the conversation so far.
  const held = root.textContent.length;
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  let len = 0;
  for await (const data of sseData(res.body)) {
    if (data === '[DONE]') break;
    const piece = JSON.parse(data).choices?.[0]?.delta?.content;
    if (!piece) continue;
    len += piece.length;
    arrivals.push([lastRead, len]);
    if (replaceAt && arrivals.length === replaceAt) {
      // The app replaces the answer's element (a re-mount, a "final" message component).
      const next = document.createElement('div');
      next.className = 'msg assistant final';
      next.innerHTML = el.innerHTML;
      el.replaceWith(next);
      el = next;
      current = renderer(kind, next, commit);
    }
    s.push(piece);
  }
  await s.end();
  const r = await reported(turns ? 2 : 1);
  profiler.disconnect();
  // Truth: each piece's first commit that shows all of it.
  const lags = arrivals.map(([t, end]) => {
    const c = commits.find(([, shown]) => shown >= end);
    return c ? c[0] - t : null;
  });
  const painted = arrivals.map(([t, end]) => {
    const c = commits.find(([, shown]) => shown >= end);
    return c && c[2] !== null ? c[2] - t : null;
  });
  return { report: r, earlierReport: turns ? reports[0] : null, held, earlierMs: median(earlierCost.slice(0, Math.ceil(earlierCost.length / 5))), truth: median(lags), renderSlope: slope(renders), renders: renders.length, paintTruth: { p50: quantile(painted, 0.5), p95: quantile(painted, 0.95) }, commits: commits.length, arrivals: arrivals.length, text: out.textContent.length, lastCommit: commits.length ? commits[commits.length - 1][0] - r.startTime : null, firstArrival: arrivals.length ? arrivals[0][0] - r.startTime : null, busy: busy && busy.map((t) => t - r.startTime) };
};

/**
 * `n` streams at once into `n` bubbles of one container, one profiler observing it: each stream
 * must find its own bubble. Resolves to [{ report, length }] in the order of the streams.
 */
window.runConcurrent = async ({ n = 2, delay = 30 }) => {
  const root = document.getElementById('chat');
  const profiler = new Profiler();
  profiler.observe(root);
  const done = new Promise((resolve) => {
    const got = [];
    profiler.onReport((r) => got.push(r) === n && resolve(got));
  });
  const lengths = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const out = document.createElement('div');
      out.className = 'msg assistant';
      root.append(out);
      const res = await profiler.fetch(`/v1/chat/completions?ttft_ms=${20 + 15 * i}&token_ms=${12 + 5 * i}&tokens=${50 + 10 * i}&seed=${i + 3}`, { method: 'POST', body: '{}' });
      let text = '';
      const pending = [];
      for await (const data of sseData(res.body)) {
        if (data === '[DONE]') break;
        const piece = JSON.parse(data).choices?.[0]?.delta?.content;
        if (!piece) continue;
        text += piece;
        pending.push(new Promise((r) => setTimeout(() => r(out.append(piece)), delay)));
      }
      await Promise.all(pending);
      return [...text].length; // characters, as reports count them (not UTF-16 units)
    }),
  );
  const reports = await done;
  profiler.disconnect();
  // Match reports to streams by their answer length (the seeds make them differ).
  return lengths.map((length) => ({ length, report: reports.find((r) => r.chars === length) }));
};

/** Pretends the page goes hidden from `at` ms for `ms` ms (see the test for why it is emulated). */
window.hideFor = (at, ms) => {
  const set = (state) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
    document.dispatchEvent(new Event('visibilitychange'));
  };
  setTimeout(() => {
    set('hidden');
    setTimeout(() => set('visible'), ms);
  }, at);
};

/**
 * What one render of `text` by `kind` costs this machine (ms, the median of `n`), in a detached
 * element: the tests that need a page slower than its stream pace the stream by it, so that the
 * page falls behind on a fast machine as on a slow one.
 */
window.renderCost = (kind, text, n = 5) => {
  const el = document.createElement('div');
  document.body.append(el);
  // The highlighter's pass (markdown-highlighter) is part of the page's cost of a change: it is
  // run in place here, not in the task the renderer would schedule.
  const highlight = kind === 'markdown-highlighter';
  const show = renderer(highlight ? 'markdown-it' : kind, el, () => {});
  const ms = [];
  // Two warm-up renders first: the first ones run before the JIT has compiled the renderer.
  for (let i = -2; i < n; i++) {
    const t0 = performance.now();
    show(text);
    if (highlight) window.highlightNow(el);
    if (i >= 0) ms.push(performance.now() - t0);
  }
  el.remove();
  ms.sort((a, b) => a - b);
  return ms[n >> 1];
};
window.renderersReady = true;
