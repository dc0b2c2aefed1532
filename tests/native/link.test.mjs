// The core link's queue (js/core/link.js): one flush timer at most is pending. A call into the
// core flushes the queue first; that flush must leave the pending timer be. When it reset the
// timer instead, the next queued record set another timer and idle callback: on a page whose
// every commit crosses into the core (a React render per delta), one setTimeout and one
// requestIdleCallback per delta (seen in the React bench, issue 33).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreLink } from '../../js/core/link.js';

test('calls into the core between queued records set one flush timer, not one per record', async () => {
  const saved = globalThis.setTimeout;
  const timers = [];
  globalThis.setTimeout = (fn, ms) => {
    timers.push(fn);
    return timers.length;
  };
  try {
    const link = new CoreLink({ configure: () => '', arrival: () => null, beforeChunk: () => {} });
    const s = { id: 1, gen: 0, done: false, committed() {} };
    for (let i = 0; i < 100; i++) {
      link.defer({ s, text: 'w ', from: 2 * i, t: i });
      link.call(() => 0, 0, s); // what a re-render does: the queue is flushed, then the call made
    }
    assert.equal(timers.length, 1, `${timers.length} timers for 100 records`);
    // The timer, once it has run, lets the next record set a new one.
    timers[0]();
    link.defer({ s, text: 'w ', from: 200, t: 100 });
    assert.equal(timers.length, 2);
  } finally {
    globalThis.setTimeout = saved;
  }
});
