// A chat app with no line of tokenpaint in it, for the extension and `observe()` with no element
// (issue 34): React 19 under <StrictMode> (development build), react-markdown rendering each
// answer, a conversation of several turns (each question shown, then its answer), plain fetch.
// The app records its own truth: when its reader got each delta and when React committed the
// DOM that shows it (a layout effect), and every byte it received, to compare with and without
// tokenpaint.
import { StrictMode, useLayoutEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import Markdown from 'react-markdown';
import { commitTruth, deltas, recording } from '../../pages/deltas.js';

const turns = []; // per answer: { arrivals: [[end, t]], commits: [[length, t]] }
window.received = [];

function Answer({ text, turn }) {
  useLayoutEffect(() => {
    turns[turn].commits.push([text.length, performance.now()]);
  }, [text, turn]);
  return (
    <div className="assistant">
      <span className="role">Assistant</span>
      <div className="content">
        <Markdown>{text}</Markdown>
      </div>
    </div>
  );
}

function Chat() {
  const [messages, setMessages] = useState([]);
  window.send = async (query, question = 'Explain streaming latency.') => {
    const turn = turns.push({ arrivals: [], commits: [] }) - 1;
    setMessages((m) => [...m, { role: 'user', text: question }, { role: 'assistant', text: '', turn }]);
    const res = await fetch(`/v1/chat/completions?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: question }] }) });
    let text = '';
    for await (const { content, t } of deltas(recording(res.body, window.received))) {
      text += content;
      turns[turn].arrivals.push([text.length, t]);
      const shown = text;
      setMessages((m) => m.map((x) => (x.turn === turn ? { ...x, text: shown } : x)));
    }
    return text;
  };
  return (
    <div className="messages">
      {messages.map((m, i) => (m.role === 'user' ? <div key={i} className="user">{m.text}</div> : <Answer key={i} text={m.text} turn={m.turn} />))}
    </div>
  );
}

/** The app's truth for answer `turn`: the median of (commit that showed a delta − its arrival). */
window.truth = (turn) => commitTruth(turns[turn].arrivals, turns[turn].commits);

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <Chat />
  </StrictMode>,
);
window.appReady = true;
