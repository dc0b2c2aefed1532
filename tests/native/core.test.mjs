// The shell's side of the boundary with the real core, in Node (issue 50's unit tier): the wasm
// built by `npm test` (pkg/), loaded through js/core/wasm.js as the page loads it, and called as
// the shell calls it. Here: a render's packed result, read back with the shell's own readers
// (committedOf, resumeLimitOf), which a change of the packing on either side breaks.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { load, createCore, call, committedOf, resumeLimitOf } from '../../js/core/wasm.js';
import * as calls from '../../js/core/calls.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const wasm = path.join(root, 'pkg/tokenpaint_core_bg.wasm');
let core = null;

before(async () => {
  // npm test builds the core first; without a build there is nothing to call.
  assert.ok(existsSync(wasm), 'pkg/ is built (bash scripts/build.sh)');
  await load(readFileSync(wasm));
  core = createCore();
  assert.ok(core, 'the core loads in Node');
});

const sse = (deltas) => new TextEncoder().encode(deltas.map((d) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: d } }] })}\n\n`).join(''));

test("a render's result reads back as the tokens it committed and where the next can resume", () => {
  const id = call(core, (c) => calls.open(c, { format: 'auto', contentType: 'text/event-stream', url: '/v1/chat/completions', start: 0, headersAt: 5, httpStatus: 200 }), 0);
  assert.ok(id > 0);
  const words = Array.from({ length: 40 }, (_, i) => ` word${i}`);
  call(core, (c) => c.chunk(id, sse(words), 10, false, NaN));
  const text = words.join('');
  // 30 words on screen, then all 40.
  const shown = words.slice(0, 30).join('');
  const first = call(core, (c) => c.render(id, shown, 0, 20), -2);
  assert.equal(committedOf(first), 30);
  // The core resumes from its checkpoints, every 64 UTF-16 units: the last one in what it read.
  const limit = resumeLimitOf(first);
  assert.ok(limit % 64 === 0 && limit > shown.length - 64 && limit <= shown.length, `resume limit ${limit} of ${shown.length}`);
  // The rest, from there: the other ten.
  const rest = call(core, (c) => c.render(id, text.slice(limit), limit, 30), -2);
  assert.equal(committedOf(rest), 10);
  const next = resumeLimitOf(rest);
  assert.ok(next % 64 === 0 && next > text.length - 64 && next <= text.length, `resume limit ${next} of ${text.length}`);
  // -1: the core needs the whole text.
  assert.equal(committedOf(-1), -1);
  assert.equal(resumeLimitOf(-1), 0);
  call(core, (c) => c.finish(id, false, false), '');
});
