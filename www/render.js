// How the page puts text on screen, the way real chat UIs do: appended, as markdown, throttled,
// typed out, buffered, highlighted, or the whole conversation re-rendered.

import { marked } from '/vendor/marked.esm.js';
import { messages } from '/www/lab.js';

/** The markdown source of each answer shown (the conversation render mode re-renders them all). */
export const sources = new WeakMap();

function busy(ms) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* a costly render */
  }
}

/** How the page puts text on screen: push(piece) as deltas come, end() when the stream ends. */
export function renderer(k, el) {
  let text = '';
  const paint = (t) => {
    if (k.render === 'markdown') el.innerHTML = marked.parse(t);
    else el.textContent = t;
    // A fixed cost, and one that grows with the text shown (a whole-message re-render).
    if (k.renderCost || k.growCost) busy(k.renderCost + (k.growCost * t.length) / 1000);
  };
  switch (k.render) {
    case 'throttled': {
      let shown = '';
      const timer = setInterval(() => text !== shown && paint((shown = text)), k.throttle);
      return { push: (p) => (text += p), end: async () => (clearInterval(timer), paint(text)) };
    }
    case 'typewriter': {
      let shown = 0;
      let done = null;
      const t0 = performance.now();
      const tick = () => {
        const want = Math.min(text.length, Math.floor(((performance.now() - t0) * k.cps) / 1000));
        if (want > shown) paint(text.slice(0, (shown = want)));
        if (done && shown >= text.length) done();
        else requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      return { push: (p) => (text += p), end: () => new Promise((r) => (done = r)) };
    }
    case 'buffered':
      return { push: (p) => (text += p), end: async () => paint(text) };
    case 'markdown':
      return { push: (p) => paint((text += p)), end: async () => {} };
    case 'highlight':
      // Markdown, then the page's highlighter (a script of its own) on its code, in a task
      // after each change.
      return {
        push: (p) => {
          el.innerHTML = marked.parse((text += p));
          window.highlightSoon?.(el);
        },
        end: async () => {},
      };
    case 'conversation': {
      // Every message re-rendered on each delta, as a list that does not memoize its finished
      // messages: the cost per 1,000 characters is over the whole conversation.
      const earlier = [...messages.querySelectorAll('.msg.assistant')].filter((b) => b !== el);
      const held = earlier.reduce((n, b) => n + (sources.get(b) ?? '').length, 0);
      return {
        push: (p) => {
          for (const b of earlier) b.innerHTML = marked.parse(sources.get(b) ?? '');
          el.innerHTML = marked.parse((text += p));
          busy(k.renderCost + (k.growCost * (held + text.length)) / 1000);
        },
        end: async () => sources.set(el, text),
      };
    }
    default:
      return {
        push: (p) => {
          text += p;
          el.append(p);
          if (k.renderCost) busy(k.renderCost);
        },
        end: async () => {},
      };
  }
}
