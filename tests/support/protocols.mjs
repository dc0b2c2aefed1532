// Generated chat protocols (issue 58), shared by the learner's property tests
// (tests/native/learn.test.mjs) and the shell's never-silent property (tests/native/silent.test.mjs):
// every shape the real apps showed, drawn at random from a seed.
import { messagePack, cbor, protobuf, base64 } from './encode.mjs';

// A small seeded generator (mulberry32): a failing case is reproduced from its seed.
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

const WORDS = ['stream', 'token', 'latency', 'naïve', 'ünïcödé', '東京', 'emoji 😀', 'paint', 'frame', 'server', 'queue', 'decode', 'the', 'of', 'fast'];
const KEYS = ['data', 'payload', 'content', 'text', 'delta', 'message', 'body', 'value', 'out', 'chunk', 'item', 'part'];
const NAMES = ['message', 'update', 'events', 'chat', 'msg', 'token', 'stream'];
// What tools are asked (never shown as the answer).
const TOOL_WORDS = ['weather', 'forecast', 'paris', 'currency', 'rates'];
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * One generated protocol and one answer sent through it: `events` ({ t, value, name, answer })
 * as the server sends them, `outs` ({ t, data, frame, ask }) as the page sends them, the submit's
 * time, the question and the truth.
 */
export function protocol(r) {
  const carry = r.pick(['sse', 'frames', 'socketio', 'binary-json', 'msgpack', 'cbor', 'protobuf', 'base64-sse']);
  const structured = carry !== 'protobuf' && carry !== 'base64-sse';
  const mode = structured ? r.pick(['delta', 'snapshot', 'diff', 'splice', 'whole-first']) : r.pick(['snapshot', 'snapshot', 'whole-first-pb']);
  const markup = mode === 'snapshot' || mode === 'whole-first' ? r.pick(['plain', 'markdown', 'html']) : r.pick(['plain', 'markdown']);
  const snapshotLike = mode === 'snapshot' || mode === 'diff' || mode === 'whole-first-pb';
  const end = !structured ? 'none' : r.pick(snapshotLike ? ['marker', 'deep', 'flag', 'none'] : ['marker', 'deep', 'flag', 'whole', 'none']);
  // Where the answer's text sits: a path of keys and indices, with a kind key on the way.
  const depth = 1 + r.int(4);
  const path = [];
  for (let i = 0; i < depth; i++) path.push(r.next() < 0.25 ? r.int(3) : r.pick(KEYS));
  if (typeof path[path.length - 1] === 'number') path.push(r.pick(KEYS));
  const kindKey = r.pick(['type', 'event', 'kind', 'object']);
  const kind = `${r.pick(NAMES)}.${r.pick(['delta', 'chunk', 'part'])}`;
  const name = carry === 'socketio' || (carry === 'sse' && r.next() < 0.5) ? r.pick(NAMES) : '';
  const id = `answer-${r.int(1000)}`;
  const nest = (leaf) => {
    let v = leaf;
    for (let i = path.length - 1; i >= 0; i--) {
      const k = path[i];
      if (typeof k === 'number') {
        const a = Array.from({ length: k + 1 }, () => ({ other: r.int(100) }));
        a[k] = v;
        v = a;
      } else v = { [k]: v };
    }
    return v;
  };
  const wrap = (leaf) => ({ [kindKey]: kind, id, ...nest(leaf) });
  const question = `What about ${r.pick(WORDS)} and ${r.pick(WORDS)}?`;
  const tokens = Array.from({ length: 6 + r.int(30) }, (_, i) => (i ? ' ' : '') + r.pick(WORDS) + (markup === 'markdown' && r.next() < 0.1 ? '**' : ''));
  const shown = (text) => (markup === 'markdown' ? text.replace(/\*\*/g, '') : text);
  const onWire = (text) => (markup === 'html' ? `<div class="md"><p>${esc(text).replace(/\n/g, '</p><p>')}</p></div>\n` : text);
  const events = [];
  let t = 100;
  // Side traffic: none of it ever grows on the page as the answer.
  const noise = () => {
    const kinds = [
      () => ({ value: 'ALIVE' }),
      () => ({ value: { [kindKey]: 'status', status: r.pick(['queued', 'running', 'thinking']), n: r.int(9) } }),
      () => ({ value: { [kindKey]: 'presence', users: [{ name: 'User', id: `u${r.int(9)}` }] } }),
      () => ({ value: { [kindKey]: 'echo', question } }),
      () => ({ value: { [kindKey]: 'layout', components: [{ label: 'Send' }, { placeholder: 'Type a message' }, { title: 'Chat' }] } }),
      () => ({ value: { [kindKey]: 'tool_call', id: 'tool-1', name: 'search', arguments: JSON.stringify({ query: r.pick(TOOL_WORDS) }) } }),
      () => ({ value: { [kindKey]: 'step', id: 'step-1', output: `Searching ${r.pick(WORDS)}` } }),
    ];
    return { ...r.pick(kinds)(), name, answer: null };
  };
  const pb = (text, extra = []) => [[1, `id${r.int(99)}`], ...extra, [5, [[3, [[29, [[1, text], [4, 1]]]]]]]];
  let text = '';
  for (const [i, tok] of tokens.entries()) {
    while (r.next() < 0.3) events.push({ t: (t += 1 + r.int(5)), ...(structured ? noise() : { value: protobuf([[1, `id${r.int(99)}`], [6, [[1, r.pick(['running', 'queued'])]]]]), name: '', answer: null }) });
    t += 5 + r.int(40);
    text += tok;
    let value;
    if (mode === 'delta') value = wrap(tok);
    else if (mode === 'snapshot') value = structured ? wrap(onWire(text)) : protobuf(pb(text));
    else if (mode === 'diff') {
      // The value sent whole first, then diffs that append to its text (Gradio's).
      value = i === 0 ? { [kindKey]: 'generating', output: { data: [wrap(tok)] } } : { [kindKey]: 'generating', output: { data: [[['append', path, tok]]] } };
    } else if (mode === 'splice') {
      // The message created whole with its first token, then each token spliced in at an offset.
      value = i === 0 ? { [kindKey]: 'create', id, element: { html: onWire(tok), attrs: { class: 'answer', role: 'log' }, padding: 'x'.repeat(200 + r.int(2000)) } } : { [kindKey]: 'patch', id, patch: { at: text.length - tok.length, del: 0, insert: tok } };
    } else if (mode === 'whole-first') {
      value = i === 0 ? { [kindKey]: 'message.start', id, message: { author: 'Assistant', output: onWire(tok), streaming: true } } : wrap(tok);
    } else value = i === 0 ? protobuf([[1, `id${r.int(99)}`], [7, pb(text)]]) : protobuf(pb(text));
    events.push({ t, value, name, answer: tok });
    // The question echoed on the answer's own path, as a snapshot app shows the user's message.
    if (i === 0 && mode === 'snapshot' && r.next() < 0.3) events.splice(events.length - 1, 0, { t: t - 2, value: structured ? wrap(question) : protobuf(pb(question)), name, answer: null });
  }
  const after = [];
  if (end === 'marker') after.push({ [kindKey]: 'done', id });
  if (end === 'deep') after.push({ [kindKey]: 'update', id, data: { event: { meta: { [kindKey]: 'stream-end' } } } });
  if (end === 'flag') after.push({ [kindKey]: 'update', id, payload: { state: { is_final: true } } });
  if (end === 'whole') after.push({ [kindKey]: 'message.full', id, message: { content: text } });
  for (const value of after) events.push({ t: (t += 10), value, name, answer: null });
  // Heartbeats after the answer, on a socket that stays open.
  if (r.next() < 0.5) events.push({ t: (t += 50), value: structured ? 'ALIVE' : protobuf([[9, 0]]), name, answer: null });
  // What the page sent: layout, presence and heartbeat frames around the ask.
  const ask = r.pick(['frame', 'request', 'submit']);
  const submitAt = 40 + r.int(40);
  const outs = [];
  for (let k = 0, at = 5; k < 2 + r.int(4); k++) outs.push({ t: (at += 3 + r.int(10)), data: r.pick(['2', '40', JSON.stringify({ type: 'layout', width: 800 }), JSON.stringify({ type: 'presence', user: 'u1' })]), frame: true, ask: false });
  if (ask === 'submit') outs.push({ t: submitAt - 10, data: JSON.stringify({ type: 'input', value: question }), frame: true, ask: false });
  const q = r.pick(['text', 'escaped', 'binary', 'base64']);
  const carried = q === 'escaped' ? JSON.stringify({ type: 'ask', text: question }).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : q === 'binary' ? protobuf([[1, 'rerun'], [3, [[2, question]]]]) : q === 'base64' ? base64(protobuf([[2, [[1, question]]]])) : JSON.stringify({ type: 'client_message', message: { output: question } });
  outs.push({ t: submitAt + 1, data: r.pick(['2', JSON.stringify({ type: 'typing', state: false })]), frame: true, ask: false });
  if (ask !== 'submit') outs.push({ t: submitAt + 3, data: carried, frame: ask === 'frame', ask: true });
  else outs.push({ t: submitAt + 3, data: JSON.stringify({ type: 'keydown', key: 'Enter' }), frame: true, ask: false });
  outs.push({ t: submitAt + 20, data: JSON.stringify({ type: 'layout', height: 600 }), frame: true, ask: false });
  return { carry, mode, markup, end, ask, tokens, events, question, text, shown: shown(text), shownOf: shown, outs, submitAt };
}

export const framesOf = (value) => (typeof value === 'string' ? value : value instanceof Uint8Array ? value : JSON.stringify(value));

