// The app under test: a plain chat page with no tokenpaint in it. It streams an answer from the
// demo server's simulated model and shows it one of two ways (`?render=`):
// - `append` (the default): each delta appended as text, what a chat should do;
// - `markdown`: the whole message re-rendered as markdown on every delta, with a renderer that
//   costs `cost` ms each time (default 40: a syntax highlighter, math), the change that makes a
//   chat feel slow and that the CI budget is there to catch.
// `?server=` adds the simulated server's knobs (a shared server's slots, for the load test).
import { marked } from '/vendor/marked.esm.js';

const q = new URLSearchParams(location.search);
const render = q.get('render') || 'append';
const cost = Number(q.get('cost') || 40);
const server = q.get('server') ? `&${q.get('server')}` : '';
const messages = document.getElementById('messages');

function busy(ms) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

document.getElementById('ask').addEventListener('submit', async (e) => {
  e.preventDefault();
  const user = document.createElement('div');
  user.className = 'msg user';
  user.textContent = document.getElementById('prompt').value;
  const answer = document.createElement('div');
  answer.className = 'msg assistant';
  messages.append(user, answer);
  const res = await fetch(`/v1/chat/completions?content=markdown&ttft_ms=100&token_ms=20&tokens=60${server}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: user.textContent }] }),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    const events = buf.split('\n\n');
    buf = events.pop();
    for (const ev of events) {
      const data = ev.startsWith('data: ') ? ev.slice(6) : '';
      if (!data || data === '[DONE]') continue;
      const delta = JSON.parse(data).choices?.[0]?.delta?.content;
      if (!delta) continue;
      text += delta;
      if (render === 'markdown') {
        answer.innerHTML = marked.parse(text);
        busy(cost);
      } else {
        answer.append(delta);
      }
    }
  }
  document.body.dataset.done = 'true';
});
