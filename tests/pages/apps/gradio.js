// A Gradio 6.31.0 ChatInterface as its page streams an answer (recorded in
// tests/recordings/gradio-6.31.0.json, replayed by scripts/app-replays.mjs), with no line of
// tokenpaint in it: a heartbeat stream (`data: ALIVE`) open all along; JSON side requests
// (`run/predict`); `queue/join`, then `queue/data` read with fetch as server-sent events of
// `{ msg }`: `process_generating` sends the chatbot's value whole, then diffs
// (`["append", [1, "content", 0, "text"], "word1 "]`), `process_completed`, `close_stream`, after
// which the page aborts the fetch. The last assistant message is rendered as Gradio renders it.
// A second queued call (re-enabling the textbox) streams no answer. It records what it received
// and its own paint truth.
import { paintTruth } from '/tests/pages/deltas.js';

window.received = [];
const log = document.querySelector('.bubble-wrap');
const hash = Math.random().toString(36).slice(2, 13);
const turns = [];

// The heartbeat: read for as long as the page lives.
fetch(`/gradio_api/heartbeat/${hash}`).then(async (r) => {
  const reader = r.body.getReader();
  for (;;) if ((await reader.read()).done) return;
});

const post = (url, body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, session_hash: hash }) }).then((r) => r.json());

function apply(value, diffs) {
  for (const [op, at, v] of diffs) {
    let node = value;
    for (const k of at.slice(0, -1)) node = node[k];
    const k = at[at.length - 1];
    if (op === 'append') node[k] += v;
    else if (op === 'replace' || op === 'add') node[k] = v;
    else if (op === 'delete') node.splice(k, 1);
  }
  return value;
}

/** Reads one queue/data stream; `onMessage(msg)` per event; aborts it at close_stream. */
async function queue(speed, onMessage) {
  const ctl = new AbortController();
  try {
    const r = await fetch(`/gradio_api/queue/data?session_hash=${hash}&speed=${speed}`, { signal: ctl.signal });
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const t = performance.now();
      window.received.push(value);
      buf += value;
      const events = buf.split('\n\n');
      buf = events.pop();
      for (const ev of events) {
        const m = JSON.parse(ev.replace(/^data: /, ''));
        if (m.msg === 'close_stream') return ctl.abort();
        onMessage(m, t);
      }
    }
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
  }
}

/** Asks; resolves with the answer's text once it is done and shown. `speed` replays faster. */
window.send = async (speed = 1) => {
  const user = document.createElement('div');
  user.className = 'message-row user-row';
  user.innerHTML = '<div data-testid="user" class="message-content"><span class="md chatbot prose"><p></p></span></div>';
  user.querySelector('p').textContent = document.querySelector('textarea').value;
  const bot = document.createElement('div');
  bot.className = 'message-row bot-row';
  bot.innerHTML = '<div data-testid="bot"><div class="message-content"><span class="md chatbot prose"><p></p></span></div></div>';
  log.append(user, bot);
  const v = { p: bot.querySelector('p'), painted: paintTruth(), asked: 0, text: '' };
  turns.push(v);
  await post('/gradio_api/run/predict', { data: ['Say something'], fn_index: 0, trigger_id: 9 });
  await post('/gradio_api/run/predict', { data: [null, []], fn_index: 1, trigger_id: 9 });
  v.asked = performance.now();
  await post(`/gradio_api/queue/join?speed=${speed}`, { data: [null, null], fn_index: 2, trigger_id: 9 });
  let chatbot = null;
  await queue(speed, (m, t) => {
    if (m.msg !== 'process_generating' && m.msg !== 'process_completed') return;
    const out = m.output.data[1];
    chatbot = out && out.length && Array.isArray(out[0]) && typeof out[0][0] === 'string' ? apply(chatbot, out) : out || chatbot;
    const last = chatbot && [...chatbot].reverse().find((x) => x.role === 'assistant');
    const text = last ? last.content.map((c) => c.text || '').join('') : '';
    if (text !== v.text) {
      v.text = text;
      v.p.textContent = text;
      v.painted.mark(t);
    }
  });
  // The textbox comes back: another queued call, whose stream carries no answer.
  await post(`/gradio_api/queue/join?speed=${speed}`, { data: [], fn_index: 4, trigger_id: 9 });
  await queue(speed, () => {});
  await new Promise((r) => setTimeout(r, 40));
  return v.text;
};

window.truth = (turn) => turns[turn].painted.median();
window.firstPaint = (turn) => turns[turn].painted.first() - turns[turn].asked;
window.appReady = true;
