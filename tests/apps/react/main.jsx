// A chat app as Vite's React template makes one: React 19 under <StrictMode> (development
// build: effects run, are cleaned up, and run again), the README's pattern for tokenpaint, and
// either plain text bubbles or Streamdown (markdown built for streaming) rendering the answer.
// The app records its own truth: when its reader got each delta, and when React committed the
// DOM that shows it (a layout effect runs right after the commit).
import { StrictMode, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Streamdown } from 'streamdown';
import init, { Profiler } from '/js/index.js';
import { deltas, commitTruth } from '../../pages/deltas.js';

await init();
const renderer = new URLSearchParams(location.search).get('renderer') || 'text';
window.reports = [];
const arrivals = []; // [end offset in the answer, time read]
const commits = []; // [answer length on screen, commit time]

function Answer({ text }) {
  useLayoutEffect(() => {
    commits.push([text.length, performance.now()]);
  }, [text]);
  return renderer === 'streamdown' ? <Streamdown>{text}</Streamdown> : <p>{text}</p>;
}

function Chat() {
  const list = useRef(null);
  const profiler = useMemo(() => new Profiler(), []);
  const [answer, setAnswer] = useState(null);
  useEffect(() => {
    profiler.observe(list.current);
    const off = profiler.onReport((r) => window.reports.push(r));
    return () => (off(), profiler.disconnect());
  }, [profiler]);
  window.send = async (query) => {
    setAnswer('');
    const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
    let text = '';
    for await (const { content, t } of deltas(res.body)) {
      text += content;
      arrivals.push([text.length, t]);
      setAnswer(text);
    }
  };
  return (
    <div ref={list} className="messages">
      <div className="user">Explain streaming latency.</div>
      {answer !== null && <Answer text={answer} />}
    </div>
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
