// A chat with no line of tokenpaint in it (issue 34), as LibreChat streams: the real sse.js
// package POSTs over XMLHttpRequest; each delta is appended to the answer's bubble 20 ms after
// its event. The page records what it received and its own paint truth.
import { SSE } from '/vendor/sse.js';
import { paintTruth } from '/tests/pages/deltas.js';

window.received = [];
const log = document.getElementById('log');
const truths = [];

/** Asks; resolves with the answer's text once [DONE] came and the last delta is shown. */
window.send = (query) =>
  new Promise((resolve) => {
    const q = document.createElement('div');
    q.className = 'msg user';
    q.textContent = document.getElementById('ask').value;
    const a = document.createElement('div');
    a.className = 'msg assistant';
    log.append(q, a);
    const painted = paintTruth();
    truths.push(painted);
    let text = '';
    const source = new SSE(`/v1/chat/completions?${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ stream: true, messages: [{ role: 'user', content: q.textContent }] }) });
    source.addEventListener('message', (e) => {
      const t = performance.now();
      window.received.push(e.data);
      if (e.data === '[DONE]') return setTimeout(() => resolve(text), 40);
      const c = JSON.parse(e.data).choices?.[0]?.delta?.content;
      if (!c) return;
      text += c;
      setTimeout(() => {
        a.append(c);
        painted.mark(t);
      }, 20);
    });
  });

/** The page's paint truth for answer `turn`: the median of painted − got. */
window.truth = (turn) => truths[turn].median();
window.appReady = true;
