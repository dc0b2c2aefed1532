// deep-chat (its whole UI in an open shadow root) with no line of tokenpaint in it, for the
// extension and `observe()` with no element (issue 34): its `handler` hook streams from an
// OpenAI-compatible server with plain fetch, the way deep-chat documents custom backends.
// The app records its own truth: when its reader got each delta, and when deep-chat's DOM first
// showed it (checked right after deep-chat took it, then in each frame); and every byte it got.
import 'deep-chat';
import { deltas, median, recording } from '../../pages/deltas.js';

let lags = [];
let pending = [];
let query = '';
window.received = [];
const chat = document.createElement('deep-chat');
chat.style.width = '600px';
chat.style.height = '500px';

// The answer's text as deep-chat shows it: the last AI message bubble.
const shown = () => {
  const bubbles = chat.shadowRoot ? chat.shadowRoot.querySelectorAll('.ai-message-text') : [];
  return bubbles.length ? bubbles[bubbles.length - 1].textContent : '';
};
function watch(piece, t) {
  const done = () => shown().includes(piece);
  if (done()) return lags.push(performance.now() - t);
  pending.push(
    new Promise((resolve) => {
      const check = () => (done() ? resolve(lags.push(performance.now() - t)) : requestAnimationFrame(check));
      requestAnimationFrame(check);
    }),
  );
}

let finished = null;
chat.connect = {
  stream: true,
  handler: async (_body, signals) => {
    const res = await fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
    signals.onOpen();
    let text = '';
    for await (const { content, t } of deltas(recording(res.body, window.received))) {
      text += content;
      await signals.onResponse({ text: content });
      watch(text.slice(-24).trim(), t);
    }
    signals.onClose();
    finished(text);
  },
};
document.body.append(chat);

/** Asks; resolves with the answer's text once it has all arrived. */
window.send = (q) => {
  query = q;
  lags = [];
  pending = [];
  const done = new Promise((resolve) => (finished = resolve));
  chat.submitUserMessage({ text: 'Explain streaming latency.' });
  return done;
};
window.truth = async () => {
  await Promise.all(pending);
  return median(lags);
};
window.appReady = true;
