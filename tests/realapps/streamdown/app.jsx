// A chat page as a new user writes it with the Vercel AI SDK's `useChat` (@ai-sdk/react 3, its
// default transport) and Streamdown 2.5.0 (whose streaming mode puts each block update in a
// React transition) with its KaTeX plugin, under React 19 in StrictMode: AI Elements' recipe.
// `useChat` updates React through useSyncExternalStore, a synchronous update per chunk.
// `?mode=static` is Streamdown's direct-update mode. The prompt box is React state, set on each
// key press. No tokenpaint here: the check attaches it from Playwright, as a user's CI does.
//
// The page's own truth: its transport's fetch tees the response and reads its copy (when each
// delta arrived, and how many letters and digits the answer held then); each change of the
// answer's DOM is stamped by the frame that paints it, when at the earliest and at the latest
// (runAnswer), with how many of them the DOM showed (a drawn formula counted by the source KaTeX
// keeps beside it). A delta is shown by the first paint that shows as many; its wait is that
// paint less its arrival. A freeze: arrived text waiting while no paint showed more.
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';
import React, { StrictMode, useDeferredValue, useEffect, useState, useSyncExternalStore } from 'react';
import { createRoot } from 'react-dom/client';
import { Streamdown } from 'streamdown';
import { createMathPlugin } from '@streamdown/math';
import 'katex/dist/katex.min.css';
import { deltas } from '../../pages/deltas.js';

const params = new URLSearchParams(location.search);
const mode = params.get('mode') || 'streaming';
// `?defer=1`: the text passed through useDeferredValue, as React's docs suggest for a slow part
// of the page: a low-priority render that each more urgent update (a key press) starts over.
const defer = params.get('defer') === '1';
// `?ticker=1`: a status line beside the answer ("Answering… 2.41 s") whose clock is a store
// ticked every animation frame and read with useSyncExternalStore, as state libraries (Zustand,
// Redux) read theirs: a sibling's synchronous update at the display's cadence
// (vercel/streamdown#550).
const ticker = params.get('ticker') === '1';

const clock = { now: 0, since: 0, raf: 0, subs: new Set() };
const subscribe = (cb) => (clock.subs.add(cb), () => clock.subs.delete(cb));
function tick(t) {
  clock.now = t;
  for (const cb of clock.subs) cb();
  clock.raf = requestAnimationFrame(tick);
}

function Status({ streaming }) {
  const now = useSyncExternalStore(subscribe, () => clock.now);
  useEffect(() => {
    if (!streaming) return;
    clock.since = performance.now();
    clock.raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(clock.raf);
  }, [streaming]);
  return streaming ? <div className="status">Answering… {(Math.max(0, now - clock.since) / 1000).toFixed(2)} s</div> : null;
}
// Every formula drawn: `$…$` too, as the answers' inline math is written (the plugin's default
// reads `$$…$$` only).
const plugins = { math: createMathPlugin({ singleDollarTextMath: true }) };

const alnum = (s) => s.replace(/[^\p{L}\p{N}]/gu, '').length;

/** Letters and digits of the answer's markdown, but its numbered lists' markers (CSS draws them). */
const letters = (s) => alnum(s.replace(/^ {0,3}\d{1,9}[.)](?=\s|$)/gm, ' '));

/**
 * Letters and digits the DOM under `el` shows: its text outside KaTeX's drawings (a formula not
 * closed yet is shown as its source), and for each drawing, its formula's source (the TeX that
 * KaTeX keeps in an annotation). A formula's token is shown once its source or its drawing is.
 */
function shown(el) {
  let n = 0;
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT, {
    acceptNode: (t) => (t.parentElement?.closest('.katex') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let t = walk.nextNode(); t; t = walk.nextNode()) n += alnum(t.data);
  for (const a of el.querySelectorAll('.katex annotation[encoding="application/x-tex"]')) n += alnum(a.textContent);
  return n;
}

// The page's reading of its own responses: [letters and digits outside formulas so far, time].
let arrivals = [];
let query = '';
async function teeing(url, init) {
  const res = await fetch(`${url}?${query}`, init);
  const [app, mine] = res.body.tee();
  (async () => {
    let text = '';
    for await (const { content, t } of deltas(mine, (e) => (e.type === 'text-delta' ? e.delta : undefined))) {
      text += content;
      arrivals.push([letters(text), t]);
    }
  })();
  return new Response(app, { status: res.status, statusText: res.statusText, headers: res.headers });
}
const transport = new DefaultChatTransport({ api: '/v1/chat/completions', fetch: teeing });

let ask = null;
let status = 'ready';
function Chat() {
  const chat = useChat({ transport });
  useEffect(() => {
    ask = chat.sendMessage;
    status = chat.status;
  });
  const last = chat.messages.at(-1);
  const text = last?.role === 'assistant' ? last.parts.filter((p) => p.type === 'text').map((p) => p.text).join('') : '';
  const deferred = useDeferredValue(text);
  // The prompt box, as chat apps write it: React state, set on each key press (a discrete event's
  // update, more urgent than a transition or a deferred value).
  const [draft, setDraft] = useState('');
  return (
    <>
      <input id="prompt" aria-label="Prompt" value={draft} onChange={(e) => setDraft(e.target.value)} />
      {ticker && <Status streaming={chat.status === 'streaming' || chat.status === 'submitted'} />}
      <div className="msg assistant" id="answer">
        <Streamdown mode={mode} plugins={plugins} isAnimating={chat.status === 'streaming'}>
          {defer ? deferred : text}
        </Streamdown>
      </div>
    </>
  );
}

createRoot(document.getElementById('chat')).render(
  <StrictMode>
    <Chat />
  </StrictMode>,
);

/**
 * The page's longest freeze: arrived text waiting while no paint showed more of the answer, from
 * the later of the waiting text's arrival and the last paint that showed more, to the next paint
 * that did. `arrivals`: [letters and digits so far, time]; `paints`: [letters and digits shown,
 * when at the earliest, when at the latest]. The freeze lies between the bounds its paints give:
 * `{ ms, lo, hi }`, `ms` between the earliest times (ms; all 0 without any).
 */
function longestFreeze(arrivals, paints) {
  let longest = { ms: 0, lo: 0, hi: 0 };
  let shownSoFar = 0;
  let since = [-Infinity, -Infinity];
  let a = 0;
  for (const [n, t, next] of paints) {
    if (n <= shownSoFar) continue;
    while (a < arrivals.length && arrivals[a][0] <= shownSoFar) a++;
    const arrived = arrivals[a]?.[1];
    if (arrived <= t) {
      // The longest of freezes each within [lo, hi] is within [the largest lo, the largest hi].
      const from = [Math.max(arrived, since[0]), Math.max(arrived, since[1])];
      longest = { ms: Math.max(longest.ms, t - from[0]), lo: Math.max(longest.lo, t - from[1]), hi: Math.max(longest.hi, (next ?? t) - from[0]) };
    }
    shownSoFar = n;
    since = [t, next ?? t];
  }
  return longest;
}

/** Asks for one answer from the simulator (`q`: its query); resolves to the page's own truth. */
// Shown: as many letters and digits on screen as had arrived.
const shows = ([n, got]) => ([s, t]) => s >= n && t >= got;

window.runAnswer = async (q) => {
  const el = document.getElementById('answer');
  arrivals = [];
  query = q;
  const paints = []; // [letters and digits shown, the frame that paints them, the next frame]
  let pending = null;
  // The frame that paints a change: its rAF callback runs just before the browser draws it, and
  // the next frame's after. The paint is between the two: at the earliest, the frame's time (the
  // rAF callbacks' argument, as the browser names a frame) or the change's if later (a long task
  // between the frame's start and its rAF callbacks made it); at the latest, when the next
  // frame's rAF callback ran (not its frame's time: that can come before the paint ends, and a
  // long task after the paint delays the callback, so the bound is wide on a busy page).
  let changed = 0;
  const stamp = (frame) => {
    const p = [shown(el), Math.max(frame, changed), null];
    paints.push(p);
    pending = null;
    requestAnimationFrame(() => (p[2] = performance.now()));
  };
  const observer = new MutationObserver(() => {
    changed = performance.now();
    pending ??= requestAnimationFrame(stamp);
  });
  observer.observe(el, { subtree: true, childList: true, characterData: true });
  await ask({ text: 'Derive a few formulas.' });
  // Until the whole answer is painted (or 60 s: a page that never shows it).
  for (let i = 0; i < 600 && !(arrivals.length && paints.length && shows(arrivals.at(-1))(paints.at(-1))); i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 200));
  observer.disconnect();
  const waits = arrivals.map((a) => {
    const p = paints.find(shows(a));
    return p ? p[1] - a[1] : null;
  });
  // The same, to the frame after the paint.
  const waitsAfter = arrivals.map((a) => {
    const p = paints.find(shows(a));
    return p && p[2] !== null ? p[2] - a[1] : null;
  });
  const known = waits.filter((w) => w !== null);
  return {
    deltas: arrivals.length,
    unshown: waits.length - known.length,
    longestWait: known.length ? Math.max(...known) : null,
    longestWaitAfter: waitsAfter.some((w) => w !== null) ? Math.max(...waitsAfter.filter((w) => w !== null)) : null,
    longestFreeze: longestFreeze(arrivals, paints),
    // The first paint that showed the whole answer (later changes, the caret's removal, show
    // nothing new).
    lastPaint: arrivals.length ? (paints.find(shows(arrivals.at(-1)))?.[1] ?? null) : null,
    changes: paints.length,
    drawn: el.querySelectorAll('.katex').length,
    status,
    waits: waits.map((w) => w && Math.round(w)),
    arrivals: arrivals.map(([n, t]) => [n, Math.round(t)]),
    paints: paints.map(([n, t, after]) => [n, Math.round(t), after && Math.round(after)]),
  };
};
window.appReady = true;
