// The learner (js/transports/learn.js) over generated protocols (issue 47, acceptance 3): random
// event names and nesting; the answer as deltas, snapshots or path diffs; heartbeats, status
// messages and echoes of the question between them; each event's bytes split at any point (SSE
// through the Framer, UTF-8 split across chunks) or sent as binary frames. Once the page has
// shown the answer's first words, every delta is found with its own arrival time, the text is
// the answer, and a stream or socket that carries no answer is never learned. Plus the two
// recorded apps' traffic, read with and without their readers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Learner, Framer, normal } from '../../js/transports/learn.js';
import { socketIoEvent } from '../../js/transports/sockets.js';

const CASES = Number(process.env.LEARN_CASES) || 300;

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

/** One generated protocol and one answer sent through it: events as `{ t, value, name }` and the truth. */
function protocol(r) {
  const mode = r.pick(['delta', 'snapshot', 'diff']);
  // Where the answer's text sits: a path of keys and indices, with a kind key on the way.
  const depth = 1 + r.int(4);
  const path = [];
  for (let i = 0; i < depth; i++) path.push(r.next() < 0.25 ? r.int(3) : r.pick(KEYS));
  if (typeof path[path.length - 1] === 'number') path.push(r.pick(KEYS));
  const kind = { key: r.pick(['type', 'event', 'kind', 'object']), value: `${r.pick(NAMES)}.${r.pick(['delta', 'chunk', 'part'])}` };
  const name = r.next() < 0.5 ? r.pick(NAMES) : '';
  const wrap = (leaf) => {
    let v = leaf;
    for (let i = path.length - 1; i >= 0; i--) {
      const k = path[i];
      if (typeof k === 'number') {
        const a = Array.from({ length: k + 1 }, () => ({ other: r.int(100) }));
        a[k] = v;
        v = a;
      } else v = { [k]: v };
    }
    return { [kind.key]: kind.value, id: 'answer-1', ...v };
  };
  const question = `What about ${r.pick(WORDS)} and ${r.pick(WORDS)}?`;
  const tokens = Array.from({ length: 6 + r.int(30) }, (_, i) => (i ? ' ' : '') + r.pick(WORDS));
  const events = [];
  let t = 100;
  const noise = () => {
    const kinds = [
      () => ({ value: 'ALIVE', name: '' }),
      () => ({ value: JSON.stringify({ [kind.key]: 'status', status: r.pick(['queued', 'running', 'thinking']), n: r.int(9) }), name }),
      () => ({ value: JSON.stringify({ [kind.key]: 'presence', users: [{ name: 'User' }] }), name }),
      () => ({ value: JSON.stringify({ [kind.key]: 'echo', question }), name }),
      () => ({ value: ': keep-alive', name: '' }),
    ];
    return r.pick(kinds)();
  };
  let text = '';
  // The answer's value as a whole, for snapshots and diffs.
  const whole = (s) => JSON.stringify(wrap(s));
  for (const [i, tok] of tokens.entries()) {
    while (r.next() < 0.3) events.push({ t: (t += 1 + r.int(5)), ...noise(), answer: null });
    t += 5 + r.int(40);
    text += tok;
    let value;
    if (mode === 'delta') value = JSON.stringify(wrap(tok));
    else if (mode === 'snapshot') value = whole(text);
    else {
      // Diffs: the first event sends the value whole; later ones append to the text's path.
      const at = path.map((k) => k);
      const outer = r.next() < 0.5;
      value = i === 0 ? JSON.stringify({ [kind.key]: 'generating', output: { data: [wrap(tok)] } }) : JSON.stringify({ [kind.key]: 'generating', output: { data: [[['append', outer ? at : at, tok]]] } });
    }
    events.push({ t, value, name, answer: tok });
  }
  events.push({ t: (t += 10), value: JSON.stringify({ [kind.key]: 'done', done: true, id: 'answer-1' }), name, answer: null });
  return { mode, tokens, events, question, text };
}

/** The events as a transport carries them: SSE split at random points, or frames (text or bytes). */
function carry(r, events) {
  const out = [];
  const framing = r.pick(['sse', 'frames', 'binary']);
  if (framing === 'sse') {
    const f = new Framer('text/event-stream');
    const bytes = new TextEncoder().encode(events.map((e) => `${e.name ? `event: ${e.name}\n` : ''}${e.value.startsWith(':') ? e.value : `data: ${e.value}`}\n\n`).join(''));
    // Each event's bytes arrive at its time, split anywhere (UTF-8 included).
    const ends = [];
    let at = 0;
    for (const e of events) {
      const n = new TextEncoder().encode(`${e.name ? `event: ${e.name}\n` : ''}${e.value.startsWith(':') ? e.value : `data: ${e.value}`}\n\n`).length;
      at += n;
      ends.push([at, e.t]);
    }
    const dec = new TextDecoder();
    let from = 0;
    for (const [end, t] of ends) {
      while (from < end) {
        const cut = Math.min(end, from + 1 + r.int(40));
        for (const ev of f.push(dec.decode(bytes.subarray(from, cut), { stream: true }))) out.push({ t, data: ev.data, name: ev.name });
        from = cut;
      }
    }
  } else {
    for (const e of events) {
      if (e.value.startsWith(':')) continue;
      const data = framing === 'binary' && r.next() < 0.7 ? new TextEncoder().encode(e.value) : e.value;
      out.push({ t: e.t, data, name: e.name });
    }
  }
  return { framing, out };
}

/** Feeds `delivered` to a learner; the page shows the answer so far after each answer event. */
function run(delivered, truth, { page = true } = {}) {
  const l = new Learner();
  const items = [];
  let shown = '';
  let answerEvents = 0;
  for (const e of delivered) {
    items.push(...l.event(e.t, e.data, e.name));
    const tok = truth.get(e.t);
    if (tok !== undefined) {
      shown += tok;
      answerEvents++;
      // The page shows the question above the answer, as chat pages do.
      if (page && !l.learned && l.shown(`You: ${truth.question}\nAssistant: ${shown}`)) items.push(...l.replay());
    }
  }
  return { l, items, answerEvents };
}

/** The answer's text and each delta's arrival time, from the items. */
function read(items) {
  let text = '';
  const deltas = [];
  for (const it of items) {
    let d = '';
    if (typeof it.delta === 'string') d = it.delta;
    else if (typeof it.text === 'string') {
      d = it.text.slice(text.length);
      assert.ok(it.text.startsWith(text), `a snapshot extends the last: ${JSON.stringify(it.text)} after ${JSON.stringify(text)}`);
    }
    if (d) deltas.push([d, it.t]);
    text += d;
  }
  return { text, deltas, done: items.some((it) => it.done) };
}

test('property: every delta of a generated protocol is found, at its own arrival time, once the page shows the answer', () => {
  for (let seed = 1; seed <= CASES; seed++) {
    const r = rng(seed);
    const p = protocol(r);
    const { framing, out } = carry(r, p.events);
    const truth = new Map(p.events.filter((e) => e.answer !== null).map((e) => [e.t, e.answer]));
    truth.question = p.question;
    const { l, items } = run(out, truth);
    const what = `seed ${seed} (${p.mode}, ${framing}, ${p.tokens.length} tokens)`;
    assert.ok(l.learned, `${what}: learned`);
    const got = read(items);
    assert.equal(got.text, p.text, `${what}: the answer's text`);
    // Each token arrived with its own event: its delta carries that event's time.
    const expected = p.events.filter((e) => e.answer !== null).map((e) => [e.answer, e.t]);
    assert.deepEqual(got.deltas, expected, `${what}: deltas and their times`);
    assert.ok(got.done, `${what}: the end is read`);
  }
});

test('property: streams that carry no answer (heartbeats, status, presence, echoes) are never learned', () => {
  for (let seed = 1; seed <= CASES; seed++) {
    const r = rng(seed);
    const p = protocol(r);
    const noiseOnly = p.events.filter((e) => e.answer === null);
    const { out } = carry(r, noiseOnly.length ? noiseOnly : [{ t: 1, value: 'ALIVE', name: '' }]);
    const l = new Learner();
    // The page shows an answer, the question and a long conversation while they flow.
    let shown = `You: ${p.question}\n`;
    for (const [i, e] of out.entries()) {
      l.event(e.t, e.data, e.name);
      shown += `${p.tokens[i % p.tokens.length]} `;
      assert.equal(l.shown(shown), false, `seed ${seed}: learned ${JSON.stringify(l.learned)} from a stream with no answer`);
    }
  }
});

test('a value the page never shows is not learned, however it grows', () => {
  const l = new Learner();
  let t = 0;
  for (const w of ['alpha ', 'beta ', 'gamma ', 'delta ']) l.event((t += 10), JSON.stringify({ type: 'log', line: w }));
  assert.equal(l.shown('A different answer altogether, with other words'), false);
  assert.equal(l.learned, null);
});

test('normal() keeps letters and digits of any script, nothing else', () => {
  assert.equal(normal('**Hello**, wörld! 東京 42 😀'), 'hellowörld東京42');
});

test('the Framer reads SSE split at every byte, CRLF and a lone CR included', () => {
  const src = 'event: a\r\ndata: {"x":1}\r\n\r\ndata: two\rdata: lines\r\r: comment\n\ndata: end\n\n';
  const whole = new Framer('text/event-stream').push(src);
  assert.deepEqual(whole, [{ name: 'a', data: '{"x":1}' }, { name: '', data: 'two\nlines' }, { name: '', data: 'end' }]);
  for (let i = 1; i < src.length; i++) {
    const f = new Framer('text/event-stream');
    assert.deepEqual([...f.push(src.slice(0, i)), ...f.push(src.slice(i))], whole, `split at ${i}`);
  }
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
      const fr = new Framer('text/event-stream');
      const items = [];
      for (const c of chunks) for (const e of fr.push(c.text)) items.push(...l.event(c.t, e.data, e.name));
      // Without the reader, the page shows the answer's first words.
      if (!readers && l.shown('Say something word0 word1 word2 word3')) items.push(...l.replay());
      const got = read(items);
      if (got.text) answers.push({ id, readers, got, learned: l.learned });
    }
  }
  assert.equal(answers.length, 2, JSON.stringify(answers.map((a) => [a.id, a.readers])));
  for (const a of answers) {
    assert.equal(a.got.text, Array.from({ length: 40 }, (_, i) => `word${i} `).join(''));
    assert.equal(a.got.deltas.length, 40);
    assert.ok(a.got.done);
    assert.equal(a.learned.by, a.readers ? 'reader' : 'learned');
  }
});

test('Open WebUI 0.12.4 (recorded): learned from the page, its Socket.IO events give every delta of the answer', () => {
  const f = fixture('open-webui-0.12.4.json');
  const l = new Learner();
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
  assert.ok(got.done);
  assert.match(l.learned.path, /^events\/data\[type=response:completion\]\/data\[type=response\.output_text\.delta\]\/delta$/);
});
