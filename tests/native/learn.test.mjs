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
import { messagePack, cbor, base64 } from '../support/encode.mjs';
import { rng, protocol, framesOf } from '../support/protocols.mjs';

const CASES = Number(process.env.LEARN_CASES) || 600;

before(async () => {
  await load(readFileSync(new URL('../../pkg/tokenpaint_core_bg.wasm', import.meta.url)));
});

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
