// Answers that do not come through fetch (issue 15), in real Chromium over real sockets: the
// real sse.js package over XHR, native EventSource, native WebSocket against a real `ws` server,
// and the push handle. For each: what the app receives is identical with and without
// tokenpaint, the report counts the server's tokens, finds all the text, and measures a lag
// within one frame of the app's own truth; hostile input leaves a clear status and the app
// untouched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, FRAME } from '../support/helpers.mjs';

let env;
let page;
before(async () => {
  env = await setup();
  page = await env.page('/tests/pages/transports.html');
  await page.waitForFunction(() => window.transportsReady === true, null, { timeout: 15000 });
});
after(() => env.close());

const SLACK = 10;

function holds(r, truth, what, tokens = 40) {
  assert.ok(r, `${what}: a report`);
  assert.equal(r.status, 'ok', `${what}: ${JSON.stringify(r.error)}`);
  assert.equal(r.deltas, tokens, `${what}: deltas`);
  assert.equal(r.tokens, tokens, `${what}: tokens (the server's usage)`);
  assert.ok(r.matchedPct >= 99, `${what}: matched ${r.matchedPct}`);
  assert.ok(r.lag.p50 >= truth - SLACK && r.lag.p50 <= truth + FRAME + SLACK, `${what}: lag p50 ${r.lag.p50} vs truth ${truth}`);
}

test('sse.js (XHR, POST) under instrument(): the same events for the app, a full report', async (t) => {
  const plain = await page.evaluate(() => window.runSseJs({ instrumented: false }));
  const { report: r, truth, received, shown } = await page.evaluate(() => window.runSseJs({}));
  t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truth.toFixed(1)} ms, matched ${r && r.matchedPct}%`);
  assert.deepEqual(received, plain.received, 'the app received the same events');
  assert.equal(shown, plain.shown);
  assert.equal(r.transport, 'xhr');
  assert.equal(r.format, 'openai-chat');
  holds(r, truth, 'sse.js');
  assert.ok(r.ttft > 0 && r.ttftPerceived && r.ttftPerceived.painted >= r.ttft);
});

// Issue 30: a page that appends each delta as a text node inside sse.js's own message event
// shows the text before tokenpaint's XHR listener (registered after sse.js's) has read it; the
// last delta, with no change after it, was never found (matched 95-98% in half the runs).
test('sse.js with each delta appended inside its message event: all of it matched', async (t) => {
  for (let i = 0; i < 3; i++) {
    const { report: r, paintTruth } = await page.evaluate(() => window.runSseJs({ query: 'ttft_ms=50&token_ms=20&tokens=48', delay: null }));
    t.diagnostic(`matched ${r.matchedPct}%, lag p50 ${r.lag.p50}, p95 ${r.lag.p95}; the page's paint p95 ${paintTruth.p95}`);
    assert.equal(r.matchedPct, 100);
    assert.equal(r.deltas, 48);
    // Within two frames, or a frame of the page's own paint truth where its frames came late
    // (a p95 of 54 ms was seen once in CI).
    const bound = Math.max(2 * FRAME + SLACK, paintTruth.p95 === null ? -Infinity : paintTruth.p95 + FRAME);
    assert.ok(r.lag.count === 48 && r.lag.p95 <= bound, `${JSON.stringify(r.lag)} vs ${bound}`);
  }
});

test('sse.js closed by the app mid-answer: aborted, nothing thrown', async () => {
  const { report: r, received } = await page.evaluate(() => window.runSseJs({ query: 'ttft_ms=20&token_ms=20&tokens=60', abortAfter: 10 }));
  assert.ok(received.length >= 10 && received.length < 60, `${received.length} events before the close`);
  assert.equal(r.transport, 'xhr');
  assert.equal(r.status, 'aborted');
  assert.deepEqual(page.errors, []);
});

for (const profile of ['track', 'instrument']) {
  test(`native EventSource (${profile}): every message an arrival, closed by the app at [DONE]`, async (t) => {
    const plain = await page.evaluate(() => window.runEventSource({ profile: '' }));
    const { report: r, truth, received, isNative } = await page.evaluate((p) => window.runEventSource({ profile: p }), profile);
    t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truth.toFixed(1)} ms, matched ${r && r.matchedPct}%`);
    assert.deepEqual(received, plain.received);
    assert.ok(isNative, 'the app holds a native EventSource');
    assert.equal(r.transport, 'eventsource');
    holds(r, truth, `EventSource ${profile}`);
  });
}

test('native WebSocket with OpenAI chunks (track): one answer, same messages for the app', async (t) => {
  const plain = await page.evaluate(() => window.runSocket({ profile: '' }));
  const { reports, truths, received } = await page.evaluate(() => window.runSocket({}));
  const r = reports[0];
  t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truths.a1.toFixed(1)} ms, matched ${r && r.matchedPct}%`);
  assert.deepEqual(received, plain.received);
  assert.equal(r.transport, 'websocket');
  holds(r, truths.a1, 'WebSocket');
  // track(ws) does not see what the socket sends: the answer's request start is unknown, and
  // so is everything measured from it (not 0).
  assert.equal(r.startSource, 'unknown');
  assert.equal(r.ttft, null);
  assert.equal(r.e2e, null);
  assert.ok(r.tpot > 0);
});

test('three answers interleaved on one socket (instrument): three reports, each in its own element', async (t) => {
  const asks = [
    { id: 'a1', tokens: 30, token_ms: 20 },
    { id: 'b2', tokens: 40, token_ms: 15, seed: 2 },
    { id: 'c3', tokens: 50, token_ms: 25, seed: 3 },
  ];
  const { reports, truths, shown, isNative } = await page.evaluate((a) => window.runSocket({ asks: a, profile: 'instrument' }), asks);
  assert.ok(isNative);
  assert.equal(reports.length, 3);
  // Under instrument() the asks are seen going out: each answer's TTFT is measured from one.
  for (const r of reports) assert.ok(r.startSource === 'request' && r.ttft >= 90, `${r.startSource} ${r.ttft}`);
  for (const ask of asks) {
    const r = reports.find((x) => x.deltas === ask.tokens);
    assert.ok(r, `a report of ${ask.tokens} deltas for ${ask.id}`);
    t.diagnostic(`${ask.id}: lag p50 ${r.lag.p50} ms, truth ${truths[ask.id].toFixed(1)} ms, matched ${r.matchedPct}%, ${shown[ask.id].length} chars`);
    holds(r, truths[ask.id], ask.id, ask.tokens);
  }
});

test('a socket read by an extract hook: the same figures', async (t) => {
  const { reports, truths } = await page.evaluate(() => window.runSocket({ extract: true }));
  const r = reports[0];
  t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truths.a1.toFixed(1)} ms`);
  assert.equal(r.format, 'text');
  assert.ok(r.matchedPct >= 99 && r.status === 'ok');
  assert.equal(r.chars, await page.evaluate(() => [...document.querySelector("#app div").textContent].length));
  assert.ok(r.lag.p50 >= truths.a1 - SLACK && r.lag.p50 <= truths.a1 + FRAME + SLACK);
});

test('hostile socket input: invalid JSON, binary garbage and a 10 MB message leave the app untouched', async () => {
  const asks = [{ id: 'g1', tokens: 20, token_ms: 10, garbage: 1, big_bytes: 10 * 1024 * 1024 }];
  const plain = await page.evaluate((a) => window.runSocket({ asks: a, profile: '' }), asks);
  const { reports, received } = await page.evaluate((a) => window.runSocket({ asks: a }), asks);
  assert.deepEqual(received, plain.received);
  const r = reports[0];
  assert.equal(r.deltas, 20);
  assert.ok(r.malformed && r.malformed.events === 20, `the invalid JSON is counted as malformed: ${JSON.stringify(r.malformed)}`);
  assert.equal(r.status, 'ok');
  assert.deepEqual(page.errors, []);
});

test('a socket dropped by the server mid-answer: the report says so', async () => {
  const { reports } = await page.evaluate(() => window.runSocket({ asks: [{ id: 'd1', tokens: 40, token_ms: 10, close_after: 10 }] }));
  const r = reports[0];
  assert.equal(r.status, 'error');
  assert.match(r.error.message, /WebSocket closed \(code 1006\)/);
  assert.equal(r.deltas, 10);
  assert.deepEqual(page.errors, []);
});

test('the push handle: an app that reads the body itself and hands over each chunk', async (t) => {
  const { report: r, truth } = await page.evaluate(() => window.runPush());
  t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truth.toFixed(1)} ms`);
  assert.equal(r.transport, 'push');
  assert.equal(r.label, 'push');
  holds(r, truth, 'push');
});

test('one 2 MB read: one chunk, every byte and delta, and the module grows by far less than the read', async (t) => {
  const { report: r, length, grew } = await page.evaluate(() => window.runBigRead());
  t.diagnostic(`read ${length} B, wasm memory grew ${grew} B`);
  assert.deepEqual(r, { status: 'ok', chunks: 1, bytes: length, deltas: 200, chars: 400 });
  assert.ok(grew < length / 2, `wasm memory grew ${grew} B for a ${length} B read`);
});

test('instrument(): unmatched URLs are not wrapped, twice is harmless, undo restores every original', async () => {
  const r = await page.evaluate(() => window.runIdentity());
  assert.equal(r.twice, true);
  assert.deepEqual(r.patched, { fetch: true, open: true, EventSource: true, WebSocket: true });
  assert.equal(r.unmatchedUrlOwn, false, 'an unmatched response is the browser\'s own');
  assert.equal(r.matchedUrlOwn, true, 'a matched response is tapped');
  assert.equal(r.sameBody, true, 'a matched response reads the same body');
  assert.equal(r.esName, 'EventSource');
  assert.deepEqual(r.constants, [1, 2, 4]);
  assert.deepEqual(r.restored, { fetch: true, open: true, send: true, EventSource: true, WebSocket: true, wsSend: true });
  assert.deepEqual(page.errors, []);
});

test('Socket.IO, Open WebUI 0.12 events (track the Socket, polling then WebSocket): a delta per token, the final whole text not counted again', async (t) => {
  const plain = await page.evaluate(() => window.runSocketIo({ profile: '' }));
  const { reports, truths, received, shown } = await page.evaluate(() => window.runSocketIo({}));
  const r = reports[0];
  t.diagnostic(`lag p50 ${r && r.lag.p50} ms, truth ${truths.m1.toFixed(1)} ms, matched ${r && r.matchedPct}%`);
  assert.deepEqual(received, plain.received);
  assert.equal(r.transport, 'socket.io');
  assert.equal(r.status, 'ok');
  assert.ok(r.ttft >= 90, `TTFT ${r.ttft} from the ask (onAnyOutgoing)`);
  assert.equal(r.deltas, 40, 'one delta per token, not the whole text again at the end');
  assert.equal(r.chars, [...shown.m1].length);
  assert.ok(r.matchedPct >= 99);
  assert.ok(r.lag.p50 >= truths.m1 - SLACK && r.lag.p50 <= truths.m1 + FRAME + SLACK, `lag p50 ${r.lag.p50} vs truth ${truths.m1}`);
});

test('Socket.IO under instrument() (WebSocket transport): three answers interleaved at once', async (t) => {
  const asks = [
    { id: 'm1', tokens: 30, token_ms: 20 },
    { id: 'm2', tokens: 40, token_ms: 15, seed: 2 },
    { id: 'm3', tokens: 50, token_ms: 25, seed: 3 },
  ];
  const { reports, truths, shown } = await page.evaluate((a) => window.runSocketIo({ asks: a, profile: 'instrument' }), asks);
  assert.equal(reports.length, 3);
  for (const ask of asks) {
    const r = reports.find((x) => x.deltas === ask.tokens);
    assert.ok(r, `a report of ${ask.tokens} deltas for ${ask.id}`);
    t.diagnostic(`${ask.id}: lag p50 ${r.lag.p50} ms, truth ${truths[ask.id].toFixed(1)} ms, matched ${r.matchedPct}%`);
    assert.equal(r.transport, 'socket.io');
    assert.equal(r.chars, [...shown[ask.id]].length, "characters (code points) shown");
    assert.ok(r.matchedPct >= 99 && r.status === 'ok');
    assert.ok(r.lag.p50 >= truths[ask.id] - SLACK && r.lag.p50 <= truths[ask.id] + FRAME + SLACK, `${ask.id}: lag p50 ${r.lag.p50} vs ${truths[ask.id]}`);
  }
});

test('Socket.IO dropped by the server mid-answer: the report says so', async () => {
  const { reports } = await page.evaluate(() => window.runSocketIo({ asks: [{ id: 'x1', tokens: 40, token_ms: 10, drop_after: 10 }] }));
  const r = reports[0];
  assert.equal(r.status, 'error');
  assert.match(r.error.message, /Socket\.IO disconnected \(io server disconnect\)/);
  assert.equal(r.deltas, 10);
  assert.deepEqual(page.errors, []);
});

for (const [name, fn] of [
  ['sse.js (XHR)', 'runSseJs'],
  ['EventSource', 'runEventSource'],
]) {
  test(`hostile input over ${name}: invalid JSON and bytes that are not UTF-8 between deltas`, async () => {
    const query = 'ttft_ms=20&token_ms=10&tokens=20&garbage=1';
    const plain = await page.evaluate(([f, q]) => window[f]({ query: q, instrumented: false, profile: '' }), [fn, query]);
    const { report: r, received } = await page.evaluate(([f, q]) => window[f]({ query: q }), [fn, query]);
    assert.deepEqual(received, plain.received, 'the app received the same events');
    assert.equal(r.status, 'ok');
    assert.equal(r.deltas, 20);
    assert.ok(r.malformed && r.malformed.events >= 20, JSON.stringify(r.malformed));
    assert.deepEqual(page.errors, []);
  });
}

// The app does not render it: rendering 36,000 deltas one by one is the page's own cost (minutes
// here, with or without tokenpaint), not what this test is about.
test('a 10 MB answer over sse.js (XHR): every event for the app, all bytes in the report', async () => {
  const query = 'body_bytes=10485760';
  const plain = await page.evaluate((q) => window.runSseJs({ query: q, instrumented: false, render: false }), query);
  const { report: r, received } = await page.evaluate((q) => window.runSseJs({ query: q, render: false }), query);
  assert.equal(received.length, plain.received.length);
  assert.deepEqual(received.slice(-3), plain.received.slice(-3));
  assert.equal(r.status, 'ok');
  assert.ok(r.bytes >= 10485760, `${r.bytes} bytes`);
  assert.deepEqual(page.errors, []);
});

test('an EventSource that reconnects: two streams, the second resumed from the last event id', async () => {
  const { reports, received } = await page.evaluate(() => window.runEventSource({ query: 'ttft_ms=20&token_ms=10&tokens=40&resume=15', reconnect: true }));
  assert.equal(received.filter((d) => d !== '[DONE]' && JSON.parse(d).choices[0]?.delta?.content).length, 40, 'the app got every token');
  assert.equal(reports.length, 2);
  const [first, second] = reports;
  assert.equal(first.transport, 'eventsource');
  assert.equal(first.resumedFrom, null);
  assert.equal(first.deltas, 15);
  assert.equal(first.doneMarker, false, 'the first connection ended before the end of the answer');
  assert.equal(first.finishReason, null);
  assert.equal(second.doneMarker, true);
  assert.equal(second.resumedFrom, '14');
  assert.equal(second.deltas, 25);
  assert.equal(second.status, 'ok');
  assert.equal(second.tokens, 25);
});

test('Socket.IO over long-polling under instrument(): each poll read as the socket messages it carries', async (t) => {
  const { reports, truths, shown, count } = await page.evaluate(() => window.runSocketIo({ profile: 'instrument', transports: ['polling'] }));
  assert.equal(count, 1, 'one report for the answer, none for the polls');
  const r = reports[0];
  t.diagnostic(`lag p50 ${r.lag.p50} ms, truth ${truths.m1.toFixed(1)} ms, matched ${r.matchedPct}%`);
  assert.equal(r.transport, 'socket.io');
  assert.equal(r.status, 'ok');
  assert.equal(r.deltas, 40);
  assert.equal(r.chars, [...shown.m1].length);
  assert.ok(r.matchedPct >= 99);
  assert.ok(r.lag.p50 >= truths.m1 - SLACK && r.lag.p50 <= truths.m1 + FRAME + SLACK, `lag p50 ${r.lag.p50} vs truth ${truths.m1}`);
});

test('hostile Socket.IO events: malformed, binary, unrelated and a 10 MB event leave the app untouched', async () => {
  const asks = [{ id: 'h1', tokens: 20, token_ms: 10, garbage: 1, big_bytes: 10 * 1024 * 1024 }];
  const plain = await page.evaluate((a) => window.runSocketIo({ asks: a, profile: '' }), asks);
  const { reports, received, shown } = await page.evaluate((a) => window.runSocketIo({ asks: a }), asks);
  assert.deepEqual(received, plain.received, 'the app received the same events');
  assert.ok(received.some((m) => m.includes('"type":"status"')), 'the 10 MB event arrived');
  assert.ok(received.includes('binary 4'), 'the binary event arrived');
  const r = reports[0];
  assert.equal(r.status, 'ok');
  assert.equal(r.deltas, 20);
  assert.equal(r.chars, [...shown.h1].length, 'only the answer text counted');
  assert.deepEqual(page.errors, []);
});
