// Claiming in Node (issue 50's unit tier): the shell's DOM watch and document search, on jsdom
// (26.1.0, a DOM in Node: MutationObserver, shadow roots, requestAnimationFrame), with the real
// core. The element that shows each answer is claimed as on a page: in an observed container, the
// answer's bubble and never the question above it; over random chat pages observed whole
// (tests/pages/chatpages.js, the same pages Chromium runs in tests/browser/find.test.mjs), the
// answer, never the question, the prompt or an earlier answer, nor an element holding one.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { JSDOM } from 'jsdom';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CASES = Number(process.env.CLAIM_CASES) || 8;
let Profiler;
let claimCase;
let window;

before(async () => {
  ({ window } = new JSDOM('<!doctype html><html><head></head><body></body></html>', { pretendToBeVisual: true }));
  // The shell reads the page's globals where it runs: a page's, here jsdom's.
  for (const k of ['document', 'MutationObserver', 'Node', 'Element', 'HTMLElement', 'ShadowRoot', 'NodeFilter', 'requestAnimationFrame', 'cancelAnimationFrame', 'getComputedStyle']) globalThis[k] = window[k];
  const index = await import('../../js/index.js');
  await index.default(readFileSync(path.join(root, 'pkg/tokenpaint_core_bg.wasm')));
  Profiler = index.Profiler;
  ({ claimCase } = await import('../pages/chatpages.js'));
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sse = (d) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: d } }] })}\n\n`;

test('in an observed container the answer claims its bubble, never the question that starts like it', async () => {
  const doc = window.document;
  doc.body.innerHTML = '<main id="chat"><div class="msg user">Latency is what?</div></main>';
  const chat = doc.getElementById('chat');
  const p = new Profiler({ settleMs: 50 });
  const report = new Promise((r) => p.onReport(r));
  p.observe(chat);
  const h = p.stream();
  const out = doc.createElement('div');
  out.className = 'msg assistant';
  chat.append(out);
  const words = ['Latency', ' is', ' the', ' wait', ' between', ' a', ' cause', ' and', ' its', ' effect', '.'];
  for (const w of words) {
    h.chunk(sse(w));
    await sleep(3);
    out.textContent += w;
    await sleep(3);
  }
  h.chunk('data: [DONE]\n\n');
  h.end();
  const r = await report;
  assert.equal(r.matchedPct, 100);
  assert.deepEqual(r.element, { selector: 'main#chat > div.msg.assistant:nth-of-type(2)', how: 'observed' });
  assert.ok(r.ttftPerceived && r.ttftPerceived.painted >= r.ttft, JSON.stringify(r.ttftPerceived));
  p.close();
});

test(`observe() with no element, over ${CASES} random chat pages: the answer, never the question, the prompt or an earlier answer`, async (t) => {
  const bad = [];
  for (let seed = 1; seed <= CASES; seed++) {
    const c = await claimCase(seed, { document: window.document, Profiler });
    const ok = !c.error && c.how === 'document' && c.unique && c.holdsAnswer && c.matched >= 99 && !c.holdsQuestion && !c.holdsPrompt && !c.holdsEarlier;
    if (!ok) bad.push(c);
  }
  t.diagnostic(`${CASES - bad.length} of ${CASES} held`);
  assert.deepEqual(bad, []);
});
