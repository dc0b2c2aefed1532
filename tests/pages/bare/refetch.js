// A chat with no line of tokenpaint in it (issue 34) that replaces `fetch` as it loads, as some
// frameworks do: `?fetch=wrap` wraps the fetch it finds (and so calls whatever was there);
// `?fetch=native` takes a fresh native fetch from an iframe (and so bypasses whatever was there).
// It streams with its fetch, shows each delta 20 ms after it read it, and records its paint truth.
import { deltas, paintTruth } from '/tests/pages/deltas.js';

const how = new URLSearchParams(location.search).get('fetch');
if (how === 'wrap') {
  const found = window.fetch;
  window.fetch = function fetch(input, init) {
    return found.call(this, input, init);
  };
} else if (how === 'native') {
  const frame = document.createElement('iframe');
  frame.hidden = true;
  document.body.append(frame);
  window.fetch = frame.contentWindow.fetch.bind(window);
}

const truths = [];
window.received = [];
window.send = async (query) => {
  const q = document.createElement('div');
  q.className = 'msg user';
  q.textContent = 'Explain streaming latency.';
  const a = document.createElement('div');
  a.className = 'msg assistant';
  document.getElementById('log').append(q, a);
  const painted = paintTruth();
  truths.push(painted);
  const res = await window.fetch(new URL(`/v1/chat/completions?${query}`, location.href), { method: 'POST', body: '{}' });
  let text = '';
  for await (const { content, t } of deltas(res.body)) {
    window.received.push(content);
    text += content;
    setTimeout(() => {
      a.append(content);
      painted.mark(t);
    }, 20);
  }
  await new Promise((r) => setTimeout(r, 60));
  return text;
};
window.truth = (turn) => truths[turn].median();
window.appReady = true;
