// A chat whose stream carries each token as its characters' code points (`{"c": [119, 111]}`):
// no reader knows it and no string of its events is the text the page shows, so tokenpaint can
// only say that it cannot read it. No line of tokenpaint in it.
window.received = [];
const chat = document.getElementById('chat');

window.send = async () => {
  const q = document.createElement('p');
  q.className = 'question';
  q.textContent = document.getElementById('prompt').value;
  const a = document.createElement('div');
  a.className = 'answer';
  const p = document.createElement('p');
  a.append(p);
  chat.append(q, a);
  const r = await fetch('/unreadable/stream', { method: 'POST', body: q.textContent });
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    window.received.push(value);
    buf += value;
    const events = buf.split('\n\n');
    buf = events.pop();
    for (const ev of events) {
      const m = JSON.parse(ev.slice(6));
      if (m.c) p.textContent += String.fromCodePoint(...m.c);
    }
  }
  return p.textContent;
};
// A chat whose stream tokenpaint can learn, but whose page shows other words than it carries
// after the first six (a page that rewrites the answer): no reading explains the page.
window.sendOther = async () => {
  const a = document.createElement('div');
  a.className = 'answer';
  const p = document.createElement('p');
  a.append(p);
  chat.append(a);
  const r = await fetch('/contradicted/stream', { method: 'POST', body: 'Say something' });
  const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let n = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    const events = buf.split('\n\n');
    buf = events.pop();
    for (const ev of events) {
      const m = JSON.parse(ev.slice(6));
      if (m.kind !== 'part') continue;
      p.textContent += n++ < 6 ? m.text : ` other${n}`;
    }
  }
  return p.textContent;
};
window.appReady = true;

// With `#local`: the answer comes by no stream at all (made in the page, as a worker or an
// extension's message might bring it), after the user's Enter in the prompt.
document.getElementById('prompt').addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || location.hash !== '#local') return;
  e.preventDefault();
  const a = document.createElement('div');
  a.className = 'answer';
  const p = document.createElement('p');
  a.append(p);
  chat.append(a);
  const words = 'The answer grows here word by word with no stream that carries it'.split(' ');
  let i = 0;
  const timer = setInterval(() => {
    p.textContent += (i ? ' ' : '') + words[i++];
    window.lastChange = performance.now();
    if (i === words.length) clearInterval(timer);
  }, 25);
});
