// The bench's attribution of main-thread time to tokenpaint (bench/attribution.mjs) must count
// every file the shell is made of: when the shell moved into folders (js/core/, js/browser/, …),
// a pattern that matched only files directly in js/ stopped counting the tap, the paint clock,
// the DOM watch and the queue, and the CPU-profile figure fell to a seventh of the real one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ours, entryOf, nameOf, attribute } from '../../bench/attribution.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const files = (dir) => readdirSync(path.join(root, dir), { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => `${dir}/${f}`);

test('every script of the shell and the glue counts as tokenpaint\'s; the page\'s own and its libraries do not', () => {
  const shell = files('js');
  assert.ok(shell.some((f) => f.includes('/browser/')) && shell.some((f) => f.includes('/transports/')), shell.join());
  for (const f of shell) assert.ok(ours(`http://127.0.0.1:8080/${f}`), f);
  assert.ok(ours('http://127.0.0.1:8080/pkg/tokenpaint_core_bg.wasm'));
  for (const f of ['/bench/pages/chat.js', '/bench/pages/floor.js', '/node_modules/eventsource-parser/dist/index.js']) assert.equal(ours(`http://127.0.0.1:8080${f}`), false, f);
  for (const u of ['', 'about:blank', undefined]) assert.equal(ours(u), false, String(u));
});

test('a profile\'s samples are attributed to the outermost tokenpaint frame, by its path under js/', () => {
  const frame = (url, functionName) => ({ url: `http://127.0.0.1:8080${url}`, functionName, lineNumber: 0 });
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('/bench/pages/chat.js', 'run'), children: [2, 4] },
      { id: 2, callFrame: frame('/js/transports/tap.js', 'pull'), children: [3] },
      { id: 3, callFrame: frame('/js/core/stream.js', 'chunk') },
      { id: 4, callFrame: frame('/node_modules/eventsource-parser/dist/index.js', 'feed') },
    ],
    samples: [2, 3, 3, 4],
    timeDeltas: [1000, 1000, 1000, 5000],
  };
  const r = attribute(profile);
  assert.equal(r.total, 3);
  assert.deepEqual(Object.keys(r.parts), ['transports/tap.js:pull']);
  assert.equal(nameOf('http://x/js/browser/watch.js'), 'browser/watch.js');
  assert.equal(entryOf('browser/watch.js', ''), 'browser/watch.js:(observe)');
});
