// A chat with no line of tokenpaint in it (issue 34), as Open WebUI streams: a socket.io-client
// Socket receives `chat-events` whose `chat:completion` events carry the whole answer so far; the
// page shows each snapshot's new text 20 ms after it came. It records what it received and its
// own paint truth.
import { io } from '/vendor/socket.io.esm.min.js';
import { paintTruth } from '/tests/pages/deltas.js';

window.received = [];
const chat = document.getElementById('chat');
const truths = [];
const socket = io({ transports: ['websocket'], reconnection: false });
let current = null;

socket.on('chat-events', (m) => {
  const t = performance.now();
  window.received.push(JSON.stringify(m));
  const v = current;
  const d = m && m.data && m.data.data;
  if (!v || !d || m.message_id !== v.id || typeof d.content !== 'string') return;
  const next = m.data.type === 'chat:message:delta' ? v.text + d.content : d.content;
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
