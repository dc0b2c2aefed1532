// Random chat pages for `observe()` with no element (issue 34): a property test of the claim,
// run in Chromium (tests/pages/find.js, tests/browser/find.test.mjs) and in Node on jsdom
// (tests/native/claim.test.mjs). Each case builds, from its seed, a conversation of 0 to 3
// earlier turns (some answers the same text as the new one, as a server at temperature 0
// gives), role labels, toolbars, a prompt field (a textarea, or an editable region the user
// types into during the answer, sometimes the answer's own first words), oldest-first or
// newest-first order, and one of four ways of rendering the new answer: text nodes appended, one
// text node grown in place, the whole answer re-rendered per delta, or a typing indicator
// replaced by the first delta. In some cases the answer's first five deltas are shown before the
// document search has loaded (it then reads what the page shows, as a fresh-clone run did for
// its very first case). An earlier answer's toolbar may change while the new one streams. The
// answer comes through a push handle.

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'latency token stream paint frame queue prefill decode proxy buffer render commit arrive network server client browser answer delta chunk'.split(' ');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One random chat page (from `seed`) in `document`, an answer streamed into it, profiled by a
 * `Profiler` observing the whole document: what its report claimed, against the truth.
 */
export async function claimCase(seed, { document, Profiler }) {
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  };
  const r = rng(seed);
  const int = (n) => Math.floor(r() * n);
  const pick = (a) => a[int(a.length)];
  const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  document.body.replaceChildren();
  const answer = `${pick(['Sure', 'Streaming', 'Latency', 'Here'])}: ${words(20)}.\n\n${words(15)}.\n\n${words(10)}.`;
  const newestFirst = r() < 0.35;
  const reversed = newestFirst && r() < 0.5; // the answer above its question
  const labels = r() < 0.5;
  const toolbar = r() < 0.5;
  const mode = pick(['append', 'grow', 'rerender', 'indicator']);
  const same = r() < 0.4;
  document.body.append(el('header', '', pick(['Chat', 'Assistant', 'Support']) + ' ' + words(2)));
  const list = el('div', pick(['messages', 'log', 'thread']));
  const main = el('main');
  main.append(list);
  document.body.append(main);
  const bubble = (role, text) => {
    const b = el('div', `msg ${role}`);
    if (labels) b.append(el('span', 'role', role === 'user' ? 'You' : 'Assistant'));
    const c = el('div', 'content');
    if (text) for (const part of text.split('\n\n')) c.append(el('p', '', part));
    b.append(c);
    if (toolbar && role === 'assistant') b.append(el('div', 'toolbar', 'Copy'));
    return { b, c };
  };
  const earlier = [];
  const turn = (q, a) => (newestFirst ? list.prepend(...(reversed ? [a, q] : [q, a])) : list.append(q, a));
  for (let i = int(4); i > 0; i--) {
    const a = bubble('assistant', same && r() < 0.7 ? answer : `${pick(['Well', 'No', 'Yes'])}, ${words(25)}.`);
    earlier.push(a.b);
    turn(bubble('user', `Question ${words(5)}?`).b, a.b);
  }
  // The prompt field: a textarea, or an editable region that may hold the answer's first words.
  const editable = r() < 0.5;
  const prompt = editable ? el('div', 'prompt', r() < 0.5 ? answer.slice(0, 12) : 'Ask me') : el('textarea', 'prompt', r() < 0.5 ? answer.slice(0, 12) : 'Ask me');
  if (editable) prompt.contentEditable = 'true';
  (r() < 0.5 ? main : document.body).append(prompt);

  const profiler = new Profiler({ settleMs: 150 });
  profiler.observe();
  const report = new Promise((resolve) => profiler.onReport(resolve));
  // Mostly the document search (a chunk of its own) is loaded before the answer starts; else the
  // question, the answer's element and its first delta are there before it is, and it reads
  // what the page already shows.
  const late = r() < 0.3;
  if (!late) await sleep(10);
  const question = bubble('user', `${answer.split(' ')[0]} ${words(4)}?`);
  const shown = bubble('assistant', '');
  const content = shown.c;
  if (mode === 'indicator') content.append(el('span', 'typing', '…'));
  const insert = () => turn(question.b, shown.b);
  if (mode === 'indicator' || r() < 0.5) insert();
  const h = profiler.stream({ contentType: 'text/plain' });
  let text = '';
  const deltas = answer.match(/[\s\S]{1,6}/g);
  let node = null;
  for (const [i, d] of deltas.entries()) {
    h.chunk(d);
    text += d;
    if (!(late && i < 5)) await sleep(int(3));
    if (!shown.b.isConnected) insert();
    if (mode === 'rerender' || (mode === 'indicator' && i === 0)) {
      content.replaceChildren(...text.split('\n\n').map((part) => el('p', '', part)));
    } else if (mode === 'grow') {
      if (!node) content.append(el('p'));
      if (!node) content.lastChild.append((node = document.createTextNode('')));
      node.data = text;
    } else {
      if (d.includes('\n\n') || !content.lastChild) content.append(el('p'));
      content.lastChild.append(d.replace(/\n/g, ''));
    }
    // Meanwhile the user types, and an earlier answer's toolbar changes.
    if (editable && i % 7 === 3) prompt.append(pick(WORDS).slice(0, 2));
    if (toolbar && earlier.length && i % 9 === 4) earlier[0].querySelector('.toolbar').textContent = i % 2 ? 'Copied' : 'Copy';
    if (!(late && i < 5)) await sleep(int(4));
  }
  h.end();
  const rep = await Promise.race([report, sleep(5000).then(() => null)]);
  profiler.close();
  if (!rep) return { seed, error: 'no report' };
  const sel = rep.element && rep.element.selector;
  const found = sel ? [...document.querySelectorAll(sel)] : [];
  const claimed = found.length === 1 ? found[0] : null;
  return {
    seed,
    mode,
    late,
    newestFirst,
    reversed,
    labels,
    same,
    selector: sel,
    how: rep.element && rep.element.how,
    matched: rep.matchedPct,
    unique: found.length === 1,
    holdsAnswer: !!claimed && (claimed === content || claimed.contains(content)),
    holdsQuestion: !!claimed && claimed.contains(question.b),
    holdsPrompt: !!claimed && (claimed === prompt || claimed.contains(prompt) || prompt.contains(claimed)),
    holdsEarlier: !!claimed && earlier.some((e) => claimed === e || claimed.contains(e) || e.contains(claimed)),
  };
}
