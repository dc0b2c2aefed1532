// Generated wire classes with decoys (issue 71), for the readings' property test
// (tests/native/readings.test.mjs). Each class is a way real chat apps put an answer on the wire,
// written from the class, not from a recording, and drawn at random from a seed:
// - `delta`: each frame appends a token (Shiny's `chunk`, Chainlit's `stream_token`);
// - `snapshot`: each frame carries the whole answer so far, its component among the others that
//   changed, in any order (Streamlit, Rio, Mesop);
// - `ops`: each frame is a list of operations, each keyed by its own key: the first adds the
//   question's row, an empty row and writes the first words into it, every later one writes the
//   whole answer so far into the last row (a page-state protocol; nothing marks the end);
// - `html`: text frames of HTML fragments swapped out of band: the question's bubble appended to
//   the list, the input field replaced (a void element), the answer's bubble appended, then one
//   fragment per token naming the bubble by id and saying how to swap (htmx's WebSocket
//   extension); no end marker;
// - `first`: the message that creates the answer's element carries its first words (escaped
//   markup, or plain), then deltas follow under another id or none (Panel's Bokeh document,
//   Chainlit's `stream_start`);
// - `binary`: deltas or operations in MessagePack or CBOR binary frames.
// Every frame may carry decoy operations beside the answer's: the question echoed, presence, a
// layout change, progress, another chat's row sent again, the input cleared. Pacing is random,
// and the stream-borne classes are split at random bytes (`sse`).
//
// Returns `{ klass, question, tokens, answer, frames: [{ t, data, name, sofar }], firstAt, page }`:
// `sofar` is the answer's text once a frame that carried some of it is in; `firstAt` the arrival
// of the frame that carried the first words; `page(shown)` what the page shows of an answer
// shown so far: `{ list, answer }` (the chat list's text, the answer bubble's).
import { messagePack, cbor } from './encode.mjs';

const WORDS = ['stream', 'token', 'latency', 'naïve', 'paint', 'frame', 'server', 'queue', 'decode', 'the', 'of', 'fast', 'window', 'reply', 'answer', 'model'];
const OTHER = 'An earlier answer of another chat, sent again with every frame';
export const CLASSES = ['delta', 'snapshot', 'ops', 'html', 'first', 'binary'];

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * @param {{ next(): number, int(n: number): number, pick<T>(xs: T[]): T }} r
 * @param {string} klass
 */
export function wire(r, klass) {
  const question = `Tell me about ${r.pick(WORDS)} and ${r.pick(WORDS)}`;
  // Six tokens at least, as the other generated protocols (tests/support/protocols.mjs): fewer, two
  // of them in the first message, leave too little on the answer's path to tell from noise.
  const n = 6 + r.int(30);
  const tokens = Array.from({ length: n }, (_, i) => (i ? ' ' : '') + r.pick(WORDS));
  // The first words: one token, or two (a message that creates the element may carry more).
  const firstN = klass === 'first' || klass === 'ops' || klass === 'html' ? 1 + r.int(2) : 1;
  const answer = tokens.join('');
  const id = `m${r.int(1000)}`;
  const key = r.pick(['key', 'k', 'target', 'path']);
  const rows = r.pick(['rows', 'messages', 'chat.data', 'history']);
  /** @type {Array<{ t: number, data: string | Uint8Array, name: string, sofar?: string }>} */
  const frames = [];
  let t = 100;
  let firstAt = NaN;
  // Decoy operations, in the same frame as the answer's.
  const decoys = () => {
    const out = [];
    while (r.next() < 0.35) {
      out.push(
        r.pick([
          () => ({ [key]: 'question', value: [question, true] }),
          () => ({ [key]: 'presence', value: [`${1 + r.int(5)} online`] }),
          () => ({ [key]: 'layout', value: [{ width: 400 + r.int(400), label: 'Send' }] }),
          () => ({ [key]: 'progress', value: [r.int(100) / 100, 'thinking'] }),
          () => ({ [key]: `${rows} 0`, value: [OTHER, false] }),
          () => ({ [key]: 'input', value: [''] }),
        ])(),
      );
    }
    return out;
  };
  const htmlDecoys = () => {
    const out = [];
    while (r.next() < 0.35) {
      out.push(
        r.pick([
          () => `<div id="status" hx-swap-oob="true">${r.pick(['typing', 'thinking', 'online'])}</div>`,
          () => `<span id="presence" hx-swap-oob="innerHTML">${1 + r.int(5)} online</span>`,
          () => `<progress id="bar" hx-swap-oob="outerHTML" value="${r.int(100)}" max="100"></progress>`,
          () => `<div id="other" hx-swap-oob="innerHTML"><p>${esc(OTHER)}</p></div>`,
          () => `<input id="msg" name="msg" placeholder="Say something" autofocus>`,
        ])(),
      );
    }
    return out;
  };
  const send = (data, name = '') => frames.push({ t: (t += 3 + r.int(45)), data, name });
  const binary = r.pick(['msgpack', 'cbor']);
  const bin = (v) => (binary === 'msgpack' ? messagePack(v) : cbor(v));
  const deltaMode = r.next() < 0.5;
  const positional = klass === 'ops' && r.next() < 0.5;
  let text = '';
  for (let i = 0; i < n; i++) {
    const tok = tokens[i];
    const start = i === 0;
    // Frames between tokens that carry nothing of the answer.
    while (r.next() < 0.2) send(JSON.stringify({ type: 'heartbeat', n: r.int(9) }));
    if (klass === 'delta') {
      send(JSON.stringify({ type: 'message', ops: [...decoys(), { type: 'chunk', id, content: tok }].sort(() => r.next() - 0.5) }));
    } else if (klass === 'snapshot') {
      text += tok;
      if (start && r.next() < 0.5) send(JSON.stringify({ type: 'update', state: { [question.length]: { text: question } } }));
      // The components that changed, in any order: the answer's markdown among decoys.
      const decoy = decoys().map((d, k) => ({ id: `d${k}`, kind: d[key], text: JSON.stringify(d.value) }));
      send(JSON.stringify({ type: 'update', components: [...decoy, { id: 'c7', kind: 'markdown', text }, ...(r.next() < 0.3 ? [{ id: 'c3', kind: 'label', text: 'Assistant' }] : [])].sort(() => r.next() - 0.5) }));
    } else if (klass === 'ops') {
      // Each operation an object keyed by its own key, or (half the time) a pair `[key, value]`
      // with nothing to name it but its place: the question's row first in the first frame, the
      // answer's row first in every later one (one path, at first sight, for both).
      const op = positional ? (/** @type {any} */ o) => [o[key], o.value] : (/** @type {any} */ o) => o;
      if (start) {
        // The question's row, an empty row, then the first words written into the last row.
        const first = tokens.slice(0, firstN).join('');
        text = first;
        i = firstN - 1;
        send(JSON.stringify({ ops: [{ [key]: `${rows} +`, value: [question, true] }, ...decoys(), { [key]: `${rows} +`, value: ['', false] }, { [key]: `${rows} -1`, value: [first, false] }].map(op) }));
      } else {
        text += tok;
        const ops = [...decoys(), { [key]: `${rows} -1`, value: [text, false] }];
        send(JSON.stringify({ ops: (positional ? ops.reverse() : ops.sort(() => r.next() - 0.5)).map(op) }));
      }
    } else if (klass === 'html') {
      if (start) {
        send(`<div id="chat" hx-swap-oob="beforeend"><div class="msg user"><b>You</b> ${esc(question)}</div></div>`);
        send(`<input id="msg" name="msg" placeholder="Say something" autofocus>`);
        // The answer's bubble: empty, or with its first words.
        const withFirst = r.next() < 0.5;
        const first = withFirst ? tokens.slice(0, firstN).join('') : '';
        send(`<div id="chat" hx-swap-oob="beforeend"><div class="msg bot" id="reply-${id}">${esc(first)}</div></div>`);
        if (withFirst) {
          i = firstN - 1;
          firstAt = frames[frames.length - 1].t;
          frames[frames.length - 1].sofar = first;
          continue;
        }
      }
      const swap = r.pick([`<span id="reply-${id}" hx-swap-oob="beforeend">${esc(tokens[i])}</span>`, `<template hx-swap-oob="beforeend:#reply-${id}">${esc(tokens[i])}</template>`, `<div id="reply-${id}" data-swap="beforeend">${esc(tokens[i])}</div>`]);
      send([...htmlDecoys(), swap].sort(() => r.next() - 0.5).join('\n'));
    } else if (klass === 'first') {
      if (start) {
        const first = tokens.slice(0, firstN).join('');
        i = firstN - 1;
        const markup = r.next() < 0.5 ? `&lt;p&gt;${esc(esc(first))}&lt;/p&gt;\n` : first;
        send(JSON.stringify({ events: [{ kind: 'ModelChanged', model: { id: 'doc' }, attr: 'children', new: [{ id: 'row1', type: 'object', attributes: { children: [{ id: 'avatar', type: 'object', attributes: { text: 'A' } }, { id: `md-${id}`, type: 'object', attributes: { css: ['md'], text: markup } }] } }] }] }));
      } else {
        const named = r.next() < 0.5 ? { model: { id: `md-${id}` } } : {};
        send(JSON.stringify({ events: [{ kind: 'MessageSent', msg_data: { type: 'event', name: 'stream', values: { ...named, patch: tokens[i] } } }, ...(r.next() < 0.3 ? [{ kind: 'ModelChanged', model: { id: 'avatar' }, attr: 'visible', new: true }] : [])] }));
      }
    } else {
      // binary
      if (deltaMode) frames.push({ t: (t += 3 + r.int(45)), data: bin({ type: 'chunk', ops: [...decoys(), { [key]: id, delta: tok }] }), name: '' });
      else {
        text += tok;
        frames.push({ t: (t += 3 + r.int(45)), data: bin({ ops: [...decoys(), { [key]: `${rows} -1`, value: [text, false] }] }), name: '' });
      }
    }
    if (Number.isNaN(firstAt)) firstAt = frames[frames.length - 1].t;
    frames[frames.length - 1].sofar = tokens.slice(0, i + 1).join('');
  }
  // What the page shows once k letters of the answer are in (a prefix of it).
  const page = (shown) => ({
    list: `${OTHER}\nYou: ${question}\nAssistant: ${shown}`,
    answer: shown,
  });
  return { klass, question, tokens, answer, frames, firstAt, page };
}
