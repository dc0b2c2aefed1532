// A chat with no line of tokenpaint in it (issue 34), as Open WebUI 0.12 streams (its protocol as
// recorded from 0.12.4, tests/recordings/): a socket.io-client Socket receives `events`, a
// `response.output_text.delta` per token, then `chat:completion` with `done`; the page shows each
// delta 20 ms after it came. It records what it received and its own paint truth.
import { io } from '/vendor/socket.io.esm.min.js';
import { paintTruth } from '/tests/pages/deltas.js';

window.received = [];
const chat = document.getElementById('chat');
const truths = [];
const socket = io({ transports: ['websocket'], reconnection: false });
let current = null;

socket.on('events', (m) => {
  const t = performance.now();
  window.received.push(JSON.stringify(m));
  const v = current;
  const d = m && m.data && m.data.data;
  if (!v || !d || m.message_id !== v.id) return;
  let next = v.text;
  if (m.data.type === 'response:completion' && typeof d.delta === 'string') next = v.text + d.delta;
  else if (m.data.type === 'chat:completion' && d.done) next = d.output.flatMap((o) => o.content).map((c) => c.text).join('');
  if (next.length > v.text.length) {
    const add = next.slice(v.text.length);
    setTimeout(() => {
      v.p.append(add);
      v.painted.mark(t);
    }, 20);
  }
  v.text = next;
  if (d.done) setTimeout(() => v.resolve(v.text), 40);
});

/** Asks (`tokens`, `token_ms`); resolves with the answer's text once it is done and shown. */
window.send = ({ tokens = 40, token_ms = 20 } = {}) =>
  new Promise((resolve) => {
    const id = `m${truths.length + 1}`;
    const q = document.createElement('article');
    q.className = 'user';
    q.textContent = document.getElementById('prompt').textContent;
    const a = document.createElement('article');
    a.className = 'assistant';
    const p = document.createElement('p');
    a.append(p);
    chat.append(q, a);
    const painted = paintTruth();
    truths.push(painted);
    current = { id, text: '', p, painted, resolve };
    const ask = () => socket.emit('ask', { id, tokens, token_ms });
    if (socket.connected) ask();
    else socket.once('connect', ask);
  });

window.truth = (turn) => truths[turn].median();
window.appReady = true;
