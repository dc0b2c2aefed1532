// deep-chat (a real chat web component whose whole UI lives in an open shadow root) connected to
// an OpenAI-compatible server through its `handler` hook, the way deep-chat documents custom
// backends: the app streams with tokenpaint's fetch and hands each delta to deep-chat. The
// profiler observes the <deep-chat> element only: the text is inside its shadow tree.
// The app records its own truth: when its reader got each delta, and when deep-chat's DOM first
// showed it (checked right after deep-chat took it, then in each frame).
import 'deep-chat';
import init, { Profiler } from '/js/index.js';
import { deltas, median } from '../../pages/deltas.js';

await init();
window.reports = [];
const lags = [];
let query = '';
const chat = document.createElement('deep-chat');
chat.style.width = '600px';
chat.style.height = '500px';
const profiler = new Profiler();
profiler.onReport((r) => window.reports.push(r));

// The answer's text as deep-chat shows it: the last AI message bubble.
const shown = () => {
  const bubbles = chat.shadowRoot ? chat.shadowRoot.querySelectorAll('.ai-message-text') : [];
  return bubbles.length ? bubbles[bubbles.length - 1].textContent : '';
};
const pending = [];
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

chat.connect = {
  stream: true,
  handler: async (_body, signals) => {
    const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
    signals.onOpen();
    let text = '';
    for await (const { content, t } of deltas(res.body)) {
      text += content;
      await signals.onResponse({ text: content });
      watch(text.slice(-24).trim(), t);
    }
    signals.onClose();
  },
};
document.body.append(chat);
profiler.observe(chat);

window.send = (q) => {
  query = q;
  chat.submitUserMessage({ text: 'Explain streaming latency.' });
};
window.truth = async () => {
  await Promise.all(pending);
  return median(lags);
};
window.appReady = true;
