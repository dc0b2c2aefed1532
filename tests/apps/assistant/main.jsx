// assistant-ui (@assistant-ui/react) with its AI SDK runtime (@assistant-ui/react-ai-sdk), in
// React 19 under <StrictMode>, as its getting-started guide sets it up: useChatRuntime with an
// AssistantChatTransport, whose `fetch` option takes tokenpaint's. The server speaks the AI SDK
// UI message stream. The thread is built from assistant-ui's primitives; the profiler observes
// the thread's viewport. The app records its own truth: when tokenpaint's fetch handed each
// chunk over (the response body is read by the AI SDK, not by the app) and when React
// committed the DOM that shows the text (a layout effect in the text part).
import { StrictMode, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { createRoot } from 'react-dom/client';
import { AssistantRuntimeProvider, ThreadPrimitive, MessagePrimitive, useMessagePartText } from '@assistant-ui/react';
import { useChatRuntime, AssistantChatTransport } from '@assistant-ui/react-ai-sdk';
import init, { Profiler } from '/js/index.js';
import { commitTruth } from '../../pages/deltas.js';

await init();
window.reports = [];
let query = '';
const profiler = new Profiler();
profiler.onReport((r) => window.reports.push(r));
const arrivals = []; // [answer length so far, time]
const commits = []; // [answer length on screen, time]

function Text() {
  const { text } = useMessagePartText();
  useLayoutEffect(() => {
    commits.push([text.length, performance.now()]);
  }, [text]);
  return <p className="answer">{text}</p>;
}

function UserMessage() {
  return (
    <MessagePrimitive.Root className="user">
      <MessagePrimitive.Parts />
    </MessagePrimitive.Root>
  );
}

function AssistantMessage() {
  return (
    <MessagePrimitive.Root className="assistant">
      <MessagePrimitive.Parts components={{ Text }} />
    </MessagePrimitive.Root>
  );
}

// The app's view of arrivals: the body it hands the AI SDK, read through a pass-through that
// notes when each delta's text came.
async function fetchTimed(_url, init) {
  const res = await profiler.fetch(`/v1/chat/completions?format=ai-sdk-ui&${query}`, init);
  let text = 0;
  let buf = '';
  const decoder = new TextDecoder();
  const body = res.body.pipeThrough(
    new TransformStream({
      transform(chunk, ctl) {
        const t = performance.now();
        buf += decoder.decode(chunk, { stream: true });
        const events = buf.split('\n\n');
        buf = events.pop();
        for (const ev of events) {
          const m = /"type":"text-delta".*"delta":("(?:[^"\\]|\\.)*")/.exec(ev);
          if (m) arrivals.push([(text += JSON.parse(m[1]).length), t]);
        }
        ctl.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: res.status, headers: res.headers });
}

function Chat() {
  const transport = useMemo(() => new AssistantChatTransport({ api: '/v1/chat/completions', fetch: fetchTimed }), []);
  const runtime = useChatRuntime({ transport });
  const viewport = useRef(null);
  useEffect(() => {
    profiler.observe(viewport.current);
    return () => profiler.disconnect();
  }, []);
  window.send = (q) => {
    query = q;
    runtime.thread.append({ role: 'user', content: [{ type: 'text', text: 'Explain streaming latency.' }] });
  };
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <ThreadPrimitive.Root>
        <ThreadPrimitive.Viewport ref={viewport}>
          <ThreadPrimitive.Messages components={{ UserMessage, AssistantMessage }} />
        </ThreadPrimitive.Viewport>
      </ThreadPrimitive.Root>
    </AssistantRuntimeProvider>
  );
}

/** The app's truth: the median of (commit that showed a delta − its arrival). */
window.truth = () => commitTruth(arrivals, commits);

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <Chat />
  </StrictMode>,
);
window.appReady = true;
