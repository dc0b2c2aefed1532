// A chat page like the ones users ship, for the bench (issue 33): React 19 in StrictMode, each
// answer rendered by react-markdown, the whole answer re-rendered on every delta (a setState per
// delta), the stream read with a reader, TextDecoder and eventsource-parser. With `profile`,
// tokenpaint runs on it as users add it: `profiler.fetch` and `observe` on the chat (with
// `profile: 'document'`, `observe()` with no element).
import { StrictMode, useState, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import Markdown from 'react-markdown';
import { createParser } from 'eventsource-parser';
import init, { Profiler } from '/js/index.js';

await init();

let api = null;
function Chat() {
  const [messages, setMessages] = useState([]);
  useEffect(() => {
    api = { setMessages };
  }, []);
  return (
    <div>
      {messages.map((m, i) => (
        <div key={i} className={`msg ${m.role}`}>
          {m.role === 'assistant' ? <Markdown>{m.text}</Markdown> : m.text}
        </div>
      ))}
    </div>
  );
}
createRoot(document.getElementById('chat')).render(
  <StrictMode>
    <Chat />
  </StrictMode>,
);
while (!api) await new Promise((r) => setTimeout(r, 10));

window.run = async ({ query, profile }) => {
  let report = null;
  let profiler = null;
  if (profile) {
    profiler = new Profiler({ maxReports: 1 });
    // 'document': observe() with no element, as the extension does (the whole page watched).
    profiler.observe(profile === 'document' ? undefined : document.getElementById('chat'));
    // Its search is a chunk of its own: loaded before the stream, as at a page's start.
    if (profile === 'document') await new Promise((r) => setTimeout(r, 50));
    report = new Promise((resolve) => profiler.onReport(resolve));
  }
  const question = { role: 'user', text: 'How do I stream a chat answer in React?' };
  api.setMessages([question, { role: 'assistant', text: '' }]);
  const url = `/v1/chat/completions?${query}`;
  const init = { method: 'POST', body: JSON.stringify({ stream: true, messages: [] }) };
  const res = profiler ? await profiler.fetch(url, init) : await fetch(url, init);
  let text = '';
  let deltas = 0;
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(e) {
      if (e.data === '[DONE]') return;
      const content = JSON.parse(e.data).choices?.[0]?.delta?.content;
      if (!content) return;
      text += content;
      deltas++;
      const shown = text;
      api.setMessages([question, { role: 'assistant', text: shown }]);
    },
  });
  const reader = res.body.getReader();
  const start = performance.now();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  const ms = performance.now() - start;
  const r = report ? await report : null;
  if (profiler) profiler.disconnect();
  return { deltas, ms, chars: text.length, report: r && { status: r.status, deltas: r.deltas, matchedPct: r.matchedPct, verdict: r.diagnosis[0] && r.diagnosis[0].verdict } };
};
window.reactReady = true;
