// The learner (js/transports/learn.js) and the ask (js/transports/asks.js) over generated protocols
// (issues 47 and 58): every shape the real apps showed, drawn at random.
// - carried as SSE split at any byte (framed by the core's own framer, the wasm `Framer`), text
//   frames, Socket.IO packets, JSON in binary frames, MessagePack, CBOR, protobuf frames, or base64
//   protobuf inside SSE;
// - the answer as deltas, snapshots, diffs that patch a value sent whole, splices (the insert of
//   each), or deltas after a whole message that opens the answer with its first token; plain
//   text, markdown or HTML on the wire;
// - its end a marker at the top, a kind nested deep, a flag nested deep, a whole message equal to
//   the text, or nothing at all (the socket stays open: the shell ends it by quiet);
// - heartbeats, status, presence, layout, tool and step messages and the question echoed (on the
//   answer's own path too, as Streamlit sends the user's message) between them;
// - the ask: a frame or a request that carries the question among layout, presence and heartbeat
//   frames, or only the user's submit (an app that sent the question while it was typed).
// Properties: wherever the page shows the answer, it is learned, its text is the answer, each of
// its values has its own arrival time, and its end is the one the protocol has (never silent); a
// stream or socket that carries no answer is never learned (no side traffic); the ask is the
// request or frame that carried the question, or the submit, never a layout or heartbeat frame.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Learner, normal, CAPS } from '../../js/transports/learn.js';
import { Asks } from '../../js/transports/asks.js';
import { socketIoEvent } from '../../js/transports/sockets.js';
import { load, framer } from '../../js/core/wasm.js';
import { messagePack, cbor, protobuf, base64 } from '../support/encode.mjs';

const CASES = Number(process.env.LEARN_CASES) || 600;

before(async () => {
  await load(readFileSync(new URL('../../pkg/tokenpaint_core_bg.wasm', import.meta.url)));
});

// A small seeded generator (mulberry32): a failing case is reproduced from its seed.
function rng(seed) {
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
function protocol(r) {
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

const framesOf = (value) => (typeof value === 'string' ? value : value instanceof Uint8Array ? value : JSON.stringify(value));

/** The events as the transport carries them and the learner gets them: `{ t, data, name }`. */
function carried(r, p, events) {
  const out = [];
  if (p.carry === 'sse' || p.carry === 'base64-sse') {
    const f = framer('text/event-stream');
    const enc = new TextEncoder();
    for (const e of events) {
      const data = p.carry === 'base64-sse' ? base64(e.value) : framesOf(e.value);
      const bytes = enc.encode(`${e.name ? `event: ${e.name}\n` : ''}data: ${data}\n\n`);
      // Each event's bytes arrive at its time, split anywhere (UTF-8 included).
      for (let from = 0; from < bytes.length; ) {
        const cut = Math.min(bytes.length, from + 1 + r.int(40));
        for (const [name, d] of f.push(bytes.subarray(from, cut))) out.push({ t: e.t, data: d, name });
        from = cut;
      }
    }
    f.free();
    return out;
  }
  for (const e of events) {
    const v = e.value;
    let data = framesOf(v);
    if (p.carry === 'socketio') {
      const io = socketIoEvent(`42${JSON.stringify([e.name || 'message', typeof v === 'string' ? v : v])}`);
      out.push({ t: e.t, data: io[1], name: io[0] });
      continue;
    }
    if (typeof v === 'object' && !(v instanceof Uint8Array)) {
      if (p.carry === 'binary-json') data = new TextEncoder().encode(JSON.stringify(v));
      if (p.carry === 'msgpack') data = messagePack(v);
      if (p.carry === 'cbor') data = cbor(v);
    }
    out.push({ t: e.t, data, name: e.name });
  }
  return out;
}

/** Feeds the events to a learner; the page shows the question and the answer so far as it comes. */
function run(r, p, delivered, truth, { page = true } = {}) {
  const l = new Learner();
  const items = [];
  let shown = '';
  for (const e of delivered) {
    items.push(...l.event(e.t, e.data, e.name));
    const tok = truth.get(e.t);
    if (tok === undefined) continue;
    shown += tok;
    // The page shows it (a busy page now and then a little later), the question above it.
    if (page && r.next() < 0.85 && l.shown(`You: ${p.question}\nAssistant: ${p.shownOf(shown)}`)) items.push(...l.replay());
  }
  if (page && !l.learned && l.shown(`You: ${p.question}\nAssistant: ${p.shownOf(shown)}`)) items.push(...l.replay());
  return { l, items };
}

/** The answer's text, each new part with its arrival time, and the end the items say. */
function read(items) {
  let text = '';
  const parts = [];
  let end = null;
  for (const it of items) {
    let d = '';
    if (typeof it.delta === 'string') d = it.delta;
    else if (typeof it.text === 'string') {
      // A snapshot: what follows the part it shares with the text so far is new.
      let same = 0;
      while (same < Math.min(text.length, it.text.length) && text[same] === it.text[same]) same++;
      d = it.text.slice(same);
      text = it.text.slice(0, same);
    }
    if (d) parts.push([d, it.t]);
    text += d;
    if (it.done) end = it.end;
  }
  return { text, parts, end };
}

test(`property: over ${CASES} generated protocols, wherever the page shows the answer it is learned whole, each part at its own arrival, with the protocol's own end`, () => {
  const counts = {};
  for (let seed = 1; seed <= CASES; seed++) {
    const r = rng(seed);
    const p = protocol(r);
    for (const k of ['carry', 'mode', 'markup', 'end', 'ask']) counts[`${k}=${p[k]}`] = (counts[`${k}=${p[k]}`] || 0) + 1;
    const what = `seed ${seed} (${p.carry}, ${p.mode}, ${p.markup}, end ${p.end}, ${p.tokens.length} tokens)`;
    const delivered = carried(r, p, p.events);
    const truth = new Map(p.events.filter((e) => e.answer !== null).map((e) => [e.t, e.answer]));
    const { l, items } = run(r, p, delivered, truth);
    assert.ok(l.learned || l.hint, `${what}: learned`);
    const got = read(items);
    assert.equal(normal(got.text), normal(p.text), `${what}: the answer's text`);
    // Each part arrived with an event of the answer's, the first with its first.
    const times = [...truth.keys()];
    assert.equal(got.parts[0][1], times[0], `${what}: the first part at the first answer event's arrival`);
    for (const [, t] of got.parts) assert.ok(truth.has(t), `${what}: a part at ${t}, no answer event's time`);
    if (p.mode === 'delta' || p.mode === 'splice' || p.mode === 'whole-first' || p.mode === 'diff') {
      assert.deepEqual(got.parts.map(([, t]) => t), times, `${what}: a part per answer event, at its time`);
    }
    const want = { marker: 'marker', deep: 'marker', flag: 'marker', whole: 'whole', none: null }[p.end];
    assert.equal(got.end, want, `${what}: the end`);
  }
  // Every shape was drawn.
  for (const k of ['carry=sse', 'carry=frames', 'carry=socketio', 'carry=binary-json', 'carry=msgpack', 'carry=cbor', 'carry=protobuf', 'carry=base64-sse', 'mode=delta', 'mode=snapshot', 'mode=diff', 'mode=splice', 'mode=whole-first', 'mode=whole-first-pb', 'markup=html', 'markup=markdown', 'end=marker', 'end=deep', 'end=flag', 'end=whole', 'end=none', 'ask=frame', 'ask=request', 'ask=submit']) {
    assert.ok(counts[k] >= 5, `${k} drawn ${counts[k] || 0} times`);
  }
});

test(`property: over ${CASES} generated protocols, streams and sockets that carry no answer (heartbeats, status, presence, layout, tools, steps, echoes) are never learned`, () => {
  for (let seed = 1; seed <= CASES; seed++) {
    const r = rng(seed);
    const p = protocol(r);
    const noiseOnly = p.events.filter((e) => e.answer === null && !/done|end|final|full/.test(JSON.stringify(e.value instanceof Uint8Array ? [] : e.value)));
    const delivered = carried(r, p, noiseOnly.length ? noiseOnly : [{ t: 1, value: 'ALIVE', name: '' }]);
    const l = new Learner();
    // The page shows an answer, the question and a long conversation while they flow.
    let shown = `You: ${p.question}\n`;
    for (const [i, e] of delivered.entries()) {
      l.event(e.t, e.data, e.name);
      shown += `${p.tokens[i % p.tokens.length]} `;
      assert.equal(l.shown(shown), false, `seed ${seed}: learned ${JSON.stringify(l.learned)} from a stream with no answer`);
    }
  }
});

test(`property: over ${CASES} generated protocols, the ask is the request or frame that carried the question, else the submit; never a layout, presence or heartbeat frame`, () => {
  for (let seed = 1; seed <= CASES; seed++) {
    const r = rng(seed);
    const p = protocol(r);
    const a = new Asks();
    for (const o of p.outs) {
      if (o.t > p.submitAt && !a.submits.length) a.submit(p.submitAt, p.question);
      a.out(o.t, o.frame ? 'ws://app/socket' : 'http://app/ask', o.frame, o.data);
    }
    const first = p.events.find((e) => e.answer !== null).t;
    const got = a.find(first);
    const ask = p.outs.find((o) => o.ask);
    const what = `seed ${seed} (${p.ask})`;
    if (ask) assert.deepEqual(got, { t: ask.t, by: ask.frame ? 'frame' : 'request', url: ask.frame ? 'ws://app/socket' : 'http://app/ask' }, what);
    else assert.deepEqual(got, { t: p.submitAt, by: 'submit', url: null }, what);
  }
});

test('a value the page never shows is not learned, however it grows', () => {
  const l = new Learner();
  let t = 0;
  for (const w of ['alpha ', 'beta ', 'gamma ', 'delta ']) l.event((t += 10), JSON.stringify({ type: 'log', line: w }));
  assert.equal(l.shown('A different answer altogether, with other words'), false);
  assert.equal(l.learned, null);
});

test('a page that shows only the first value of a path (the question, echoed) does not teach it as deltas', () => {
  const l = new Learner();
  l.event(1, { md: 'Say something' });
  for (const [i, s] of ['The', 'The the', 'The the burst'].entries()) l.event(10 + i, { md: s });
  // The page shows the question and the first words of an answer that came elsewhere.
  assert.equal(l.shown('Say something smart_toy The'), false);
  assert.equal(l.learned, null);
});

test('normal() keeps letters and digits of any script, nothing else', () => {
  assert.equal(normal('**Hello**, wörld! 東京 42 😀'), 'hellowörld東京42');
});

test("the learner's caps: an event over 1 MB is counted, not read; nesting past the depth is not followed; kept events are bounded; hostile bytes never throw", () => {
  const l = new Learner();
  const big = 'x'.repeat(CAPS.event + 1);
  assert.deepEqual(l.event(1, big), []);
  assert.deepEqual(l.event(2, new Uint8Array(CAPS.event + 1)), []);
  assert.equal(l.skipped, 2);
  assert.equal(l.kept.length, 0);
  // A value nested 1,000 deep: read down to the depth, no further, without throwing.
  let deep = { text: 'bottom' };
  for (let i = 0; i < 1000; i++) deep = { down: deep };
  const ev = l.read(JSON.stringify(deep));
  assert.ok(ev.values.every(([path]) => path.split('/').length <= CAPS.depth + 2));
  // Invalid UTF-8, binary noise, truncated MessagePack, CBOR and protobuf: no throw, no answer.
  const r = rng(7);
  for (let i = 0; i < 2000; i++) {
    const bytes = Uint8Array.from({ length: 1 + r.int(200) }, () => r.int(256));
    if (i % 3 === 0) bytes[0] = r.pick([0x82, 0x93, 0xa2, 0x9f, 0x0a, 0xde, 0xbf]);
    l.event(10 + i, bytes);
  }
  // Kept events are bounded: count, characters, and age.
  for (let i = 0; i < CAPS.events + 100; i++) l.event(100000 + i, JSON.stringify({ n: i, s: 'y'.repeat(10) }));
  assert.ok(l.kept.length <= CAPS.events);
  l.event(100000 + CAPS.events + 100 + CAPS.keptMs + 1, '{"late":"z"}');
  assert.equal(l.kept.length, 1, 'events older than the kept time are dropped');
  assert.equal(l.learned, null);
});

test("the core's framer, as the learner's streams use it: SSE at every split point gives the events of the whole", () => {
  const src = '\ufeffevent: a\r\ndata: {"x":"naïve 😀"}\r\n\r\ndata: two\rdata: lines\r\r: comment\n\ndata: end\n\ndata: unterminated';
  const bytes = new TextEncoder().encode(src);
  const whole = framer('text/event-stream');
  const all = [...whole.push(bytes), ...whole.finish()];
  assert.deepEqual(all, [['a', '{"x":"naïve 😀"}'], ['', 'two\nlines'], ['', 'end']]);
  for (let i = 1; i < bytes.length; i++) {
    const f = framer('text/event-stream');
    assert.deepEqual([...f.push(bytes.subarray(0, i)), ...f.push(bytes.subarray(i)), ...f.finish()], all, `split at ${i}`);
    f.free();
  }
  // Lines: the last one without its newline is an event at the end.
  const lines = framer('application/x-ndjson');
  assert.deepEqual([...lines.push(new TextEncoder().encode('{"a":1}\n{"b":2}')), ...lines.finish()], [['', '{"a":1}'], ['', '{"b":2}']]);
});

// The recorded apps (tests/recordings/): their wire as the page saw it.
const fixture = (name) => JSON.parse(readFileSync(new URL(`../recordings/${name}`, import.meta.url), 'utf8'));

test('Gradio 6.31.0 (recorded): its reader claims the queue stream and reads each token; the heartbeat and the status stream are not answers', () => {
  const f = fixture('gradio-6.31.0.json');
  const streams = new Map();
  for (const w of f.wire) if (w.kind === 'chunk' && /queue\/data|heartbeat/.test(f.wire.find((x) => x.id === w.id && x.kind === 'fetch').url)) (streams.get(w.id) || streams.set(w.id, []).get(w.id)).push(w);
  const answers = [];
  for (const [id, chunks] of streams) {
    for (const readers of [true, false]) {
      const l = new Learner({ readers });
      const fr = framer('text/event-stream');
      const items = [];
      for (const c of chunks) for (const [name, data] of fr.push(new TextEncoder().encode(c.text))) items.push(...l.event(c.t, data, name));
      fr.free();
      // Without the reader, the page shows the answer's first words.
      if (!readers && l.shown('Say something word0 word1 word2 word3')) items.push(...l.replay());
      const got = read(items);
      if (got.text) answers.push({ id, readers, got, learned: l.learned || l.hint });
    }
  }
  assert.equal(answers.length, 2, JSON.stringify(answers.map((a) => [a.id, a.readers])));
  for (const a of answers) {
    assert.equal(a.got.text, Array.from({ length: 40 }, (_, i) => `word${i} `).join(''));
    assert.equal(a.got.parts.length, 40);
    assert.equal(a.got.end, 'marker');
    assert.equal(a.learned.by, a.readers ? 'reader' : 'learned');
  }
});

test('Open WebUI 0.12.4 (recorded): learned from the page, its Socket.IO events give every delta of the answer (the chat\'s title, the question, is not its first words)', () => {
  const f = fixture('open-webui-0.12.4.json');
  const l = new Learner();
  l.question = normal(f.question);
  const items = [];
  let shown = 'Say something\n';
  const final = f.wire.filter((w) => w.kind === 'frame' && w.text.includes('"done":true'));
  const whole = JSON.parse(final[final.length - 1].text.slice(2))[1].data.data.output[0].content[0].text;
  for (const w of f.wire) {
    if (w.kind !== 'frame') continue;
    const io = socketIoEvent(w.text);
    if (!io) continue;
    items.push(...l.event(w.t, io[1], io[0]));
    const m = /"delta":"((?:[^"\\]|\\.)*)"/.exec(w.text);
    if (m) {
      shown += JSON.parse(`"${m[1]}"`);
      if (!l.learned && l.shown(shown)) items.push(...l.replay());
    }
  }
  const got = read(items);
  assert.equal(got.text, whole);
  assert.equal(got.end, 'marker');
  assert.match((l.learned || l.hint).path, /^events\/data\[type=response:completion\]\/data\[type=response\.output_text\.delta\]\/delta$/);
});
