// Open WebUI 0.12.4 as its page streams an answer (recorded in
// tests/recordings/open-webui-0.12.4.json, replayed by scripts/app-replays.mjs), with no line of
// tokenpaint in it: the question is a POST to /api/chat/completions that answers JSON; the answer
// comes over the page's Socket.IO connection (/ws/socket.io/) as `events`: a
// `response.output_text.delta` per token, then `chat:completion` with `done` and the whole text.
// Each delta re-renders the message's paragraph (as its Svelte markdown component does); the
// page also fetches its chat list (JSON side requests). It records what it received and its own
// paint truth.
import { io } from '/vendor/socket.io.esm.min.js';
import { paintTruth } from '/tests/pages/deltas.js';

window.received = [];
const container = document.getElementById('messages-container');
const turns = [];
const socket = io({ path: '/ws/socket.io/', transports: ['websocket'], reconnection: false });

socket.on('events', (m) => {
  const t = performance.now();
  window.received.push(JSON.stringify(m));
  const v = turns.find((x) => x.id === m.message_id);
  const e = m && m.data;
  const d = e && e.data;
  if (!v || !d) return;
  if (e.type === 'response:completion' && d.type === 'response.output_text.delta') {
    v.content += d.delta;
    v.p.textContent = v.content;
    v.painted.mark(t);
  } else if (e.type === 'chat:completion' && d.done) {
    const text = (d.output || []).flatMap((o) => o.content || []).map((c) => c.text || '').join('');
    if (text && text !== v.content) {
      v.content = text;
      v.p.textContent = text;
      v.painted.mark(t);
    }
    setTimeout(() => v.resolve(v.content), 40);
  }
});

/** Asks; resolves with the answer's text once it is done and shown. `speed` replays faster. */
window.send = (speed = 1) =>
  new Promise((resolve) => {
    const id = crypto.randomUUID();
    const user = document.createElement('div');
    user.className = 'user-message';
    user.textContent = document.getElementById('chat-input').textContent;
    const a = document.createElement('div');
    a.className = 'chat-assistant';
    a.innerHTML = '<div class="response-content-container"><div><div class="markdown-prose"><p dir="auto"></p></div></div></div>';
    container.append(user, a);
    const painted = paintTruth();
    const v = { id, content: '', p: a.querySelector('p'), painted, resolve, asked: 0 };
    turns.push(v);
    const ask = () => {
      v.asked = performance.now();
      fetch(`/api/chat/completions?speed=${speed}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, model: 'tokenpaint-sim', session_id: socket.id, id, chat_id: 'chat-1' }),
      })
        .then((r) => r.json())
        // The chat list, as the app refreshes it: JSON side requests while the answer streams.
        .then(() => fetch('/lab/config').then((r) => r.json()));
    };
    if (socket.connected) ask();
    else socket.once('connect', ask);
  });

window.truth = (turn) => turns[turn].painted.median();
window.firstPaint = (turn) => turns[turn].painted.first() - turns[turn].asked;
window.appReady = true;
