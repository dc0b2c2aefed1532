// The SDKs people use, in the browser: the Vercel AI SDK streaming text through a provider
// created with `fetch: profiler.fetch`, and a React chat component that observes its own
// message list. Bundled by esbuild in the tests; tokenpaint is loaded from /js/ as users do.
import init, { Profiler } from '/js/index.js';
import { streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import React, { useEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

await init();

window.runAiSdk = async () => {
  const out = document.getElementById('ai');
  const profiler = new Profiler();
  profiler.observe(out);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const provider = createOpenAICompatible({ name: 'sim', baseURL: `${location.origin}/v1`, fetch: profiler.fetch, includeUsage: true });
  const result = streamText({ model: provider('tokenpaint-sim'), prompt: 'Where does the time go?' });
  const p = document.createElement('p');
  out.append(p);
  for await (const text of result.textStream) p.append(text);
  const usage = await result.usage;
  return { report: await report, usage };
};

// The README's React example, as a component: the profiler observes the message list.
function Chat({ onReport }) {
  const list = useRef(null);
  const profiler = useMemo(() => new Profiler(), []);
  const [messages, setMessages] = useState([]);
  useEffect(() => {
    profiler.observe(list.current);
    const off = profiler.onReport(onReport);
    return () => (off(), profiler.disconnect());
  }, [profiler]);
  async function send(prompt) {
    setMessages((m) => [...m, { role: 'user', text: prompt }, { role: 'assistant', text: '' }]);
    const res = await profiler.fetch('/v1/chat/completions?ttft_ms=60&token_ms=15&tokens=40', { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: prompt }] }) });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      const lines = buf.split('\n');
      buf = lines.pop();
      for (const line of lines) {
        const piece = line.startsWith('data: {') ? JSON.parse(line.slice(6)).choices?.[0]?.delta?.content : null;
        if (piece) setMessages((m) => [...m.slice(0, -1), { role: 'assistant', text: m[m.length - 1].text + piece }]);
      }
    }
  }
  window.reactSend = send;
  return (
    <ul ref={list}>
      {messages.map((m, i) => (
        <li key={i} className={m.role}>{m.text}</li>
      ))}
    </ul>
  );
}

window.runReact = () =>
  new Promise((resolve) => {
    createRoot(document.getElementById('react')).render(<Chat onReport={resolve} />);
    const start = () => (window.reactSend ? window.reactSend('Hello from React') : setTimeout(start, 10));
    setTimeout(start, 0);
  });

window.sdkReady = true;
