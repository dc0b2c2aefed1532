// Readings held to the page over the whole answer (issue 71), over generated wire classes with
// decoys (tests/support/wires.mjs): appended deltas, whole-so-far snapshots, several operations
// per frame, HTML fragments aimed at ids, the first words in the message that creates the
// answer's element, and binary frames; decoy operations in the same frames; random pacing, and
// half of them carried as SSE split at random bytes (framed by the core's own framer).
//
// The page shows the question and the answer as it comes (a little late now and then), and the
// learner is driven as the shell drives it (js/core/learning.js): each event, each changed
// element's text (the answer's bubble and the chat list around it), the replay when a reading
// is learned or replaced (`restart`: what was handed over before is void), and `settle()` at the
// answer's end. Properties, for every case of every class: the learned text is the answer
// exactly, and its first item arrived with the frame that carried the first words.
//
// LEARNER=path runs the same cases against another learner (the old one, to show them failing).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { load, framer } from '../../js/core/wasm.js';
import { rng } from '../support/protocols.mjs';
import { wire, CLASSES } from '../support/wires.mjs';

const CASES = Number(process.env.READING_CASES) || 1000;
const { Learner } = await import(process.env.LEARNER ? pathToFileURL(process.env.LEARNER).href : '../../js/transports/learn.js');

before(async () => {
  await load(readFileSync(new URL('../../pkg/tokenpaint_core_bg.wasm', import.meta.url)));
});

/** The frames as the learner gets them: as they are, or as SSE split at random bytes. */
function carried(r, frames) {
  if (frames.some((f) => typeof f.data !== 'string') || r.next() < 0.5) return frames;
  const f = framer('text/event-stream');
  const enc = new TextEncoder();
  const out = [];
  for (const e of frames) {
    const bytes = enc.encode(`${e.data.split('\n').map((l) => `data: ${l}`).join('\n')}\n\n`);
    for (let from = 0; from < bytes.length; ) {
      const cut = Math.min(bytes.length, from + 1 + r.int(60));
      for (const [name, d] of f.push(bytes.subarray(from, cut))) out.push({ ...e, data: d, name, sofar: undefined });
      from = cut;
    }
    out[out.length - 1].sofar = e.sofar;
  }
  f.free();
  return out;
}

/** Drives a learner through one case as the shell does; returns the items the answer got. */
function drive(r, w) {
  const l = new Learner();
  let items = [];
  let restarts = 0;
  const take = (got) => {
    if (l.restart) {
      l.restart = false;
      restarts++;
      items = [];
    }
    items.push(...got);
  };
  let sofar = '';
  for (const f of carried(r, w.frames)) {
    take(l.event(f.t, f.data, f.name));
    if (f.sofar !== undefined) sofar = f.sofar;
    // The page shows what came (now and then a token late), the answer's bubble and the list.
    if (r.next() < 0.15) continue;
    const page = w.page(sofar);
    for (const [text, el] of [[page.answer, 'answer'], [page.list, 'list']]) {
      if (l.shown(text, el)) take(l.replay());
    }
  }
  // The page catches up with the last of it.
  const page = w.page(sofar);
  for (const [text, el] of [[page.answer, 'answer'], [page.list, 'list']]) {
    if (l.shown(text, el)) take(l.replay());
  }
  // The answer is over (quiet): the reading the page showed the most of.
  if (l.learned && typeof l.settle === 'function' && l.settle()) take(l.replay());
  return { l, items, restarts };
}

function textOf(items) {
  let text = '';
  for (const it of items) {
    if (typeof it.delta === 'string') text += it.delta;
    else if (typeof it.text === 'string') text = it.text;
  }
  return text;
}

for (const klass of CLASSES) {
  test(`property: over ${CASES} generated ${klass} wires with decoys, the learned text is the answer exactly and its first arrival is the first words' frame`, () => {
    const fails = [];
    let restarts = 0;
    let dropped = 0;
    let tried = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const r = rng(seed * 31 + CLASSES.indexOf(klass));
      const w = wire(r, klass);
      const { l, items, restarts: n } = drive(r, w);
      restarts += n;
      dropped += l.dropped || 0;
      tried += l.tried || 0;
      const text = textOf(items);
      const what = `seed ${seed}: ${l.learned ? `${l.learned.path} (${l.learned.mode})` : 'not learned'}`;
      if (text !== w.answer) fails.push(`${what}: ${JSON.stringify(text.slice(0, 80))} (${text.length}) against ${JSON.stringify(w.answer.slice(0, 80))} (${w.answer.length})`);
      else if (!items.length || items[0].t !== w.firstAt) fails.push(`${what}: first arrival ${items[0] && items[0].t} against ${w.firstAt}`);
    }
    if (process.env.READING_REPORT) console.log(`${klass}: ${fails.length} of ${CASES} fail${fails.length ? `, e.g. ${fails.slice(0, 2).join(' | ')}` : ''}; ${tried} readings tried, ${dropped} ruled out by the page, ${restarts} answers read anew`);
    assert.deepEqual(fails.slice(0, 5), [], `${fails.length} of ${CASES} ${klass} cases fail`);
  });
}
