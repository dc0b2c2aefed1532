// The bench's CPU-profile attribution (bench/attribution.mjs): a sample is tokenpaint's when one
// of its frames is on the stack, and counts for the outermost of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attribute } from '../../bench/attribution.mjs';

const frame = (url, functionName) => ({ url, functionName, lineNumber: 0 });

test('samples count for tokenpaint only with its frame on the stack, by the outermost one', () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('', '(root)'), children: [2, 4, 6, 7] },
      // the page's read loop, which calls into the tap's stream (a tokenpaint frame under the page's)
      { id: 2, callFrame: frame('http://h/bench/pages/chat.js', 'run'), children: [3] },
      { id: 3, callFrame: frame('http://h/js/transports/tap.js', 'pull'), children: [5] },
      { id: 5, callFrame: frame('', 'read'), children: [8] },
      // a tokenpaint frame under another: the outer one is the entry point
      { id: 8, callFrame: frame('http://h/js/core/link.js', 'copy'), children: [] },
      { id: 4, callFrame: frame('http://h/js/browser/paint.js', 'after'), children: [] },
      // the observer's callback, an arrow function in the DOM watch
      { id: 6, callFrame: frame('http://h/js/browser/watch.js', ''), children: [] },
      // a page frame that only looks like ours
      { id: 7, callFrame: frame('http://h/bench/pages/js.js', 'x'), children: [] },
    ],
    samples: [2, 3, 5, 8, 4, 6, 7, 1],
    timeDeltas: [1000, 1000, 500, 250, 500, 2000, 4000, 8000],
  };
  const { total, parts } = attribute(profile);
  assert.equal(total, 4.25);
  assert.deepEqual(parts, { 'browser/watch.js:(observe)': 2, 'transports/tap.js:pull': 1.75, 'browser/paint.js:after': 0.5 });
});
