// Resource Timing, read without a browser: how long a request waited in the browser before it
// was sent (its queueing part), and the `browser-queued` verdict that rests on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserQueue, refineNetworkVerdict } from '../js/resource.js';

// An entry as the browser gives it (absolute times, ms), and the report's view of it.
function report(entry, networkMs) {
  const rel = (v) => v - entry.startTime;
  return {
    resourceTiming: { requestStart: rel(entry.requestStart), browserQueue: browserQueue(entry) },
    diagnosis: [{ verdict: 'network-bound', evidence: { networkMs, ttft: networkMs + 50 }, fix: '' }],
  };
}

test('a cold connection to a distant API is network time, not browser queueing', () => {
  // DNS 60 ms, TCP + TLS 320 ms: the request leaves at 380 ms, and never waited.
  const entry = { startTime: 1000, domainLookupStart: 1000, domainLookupEnd: 1060, connectStart: 1060, connectEnd: 1380, requestStart: 1380 };
  assert.equal(browserQueue(entry), 0);
  const r = report(entry, 400);
  refineNetworkVerdict(r);
  assert.equal(r.diagnosis[0].verdict, 'network-bound');
});

test('a request that waited for one of the 6 connections per host is browser-queued', () => {
  // Reused connection (no DNS, no connect) after a 700 ms wait in the browser.
  const entry = { startTime: 1000, domainLookupStart: 1700, domainLookupEnd: 1700, connectStart: 1700, connectEnd: 1700, requestStart: 1700 };
  assert.equal(browserQueue(entry), 700);
  const r = report(entry, 720);
  refineNetworkVerdict(r);
  assert.equal(r.diagnosis[0].verdict, 'browser-queued');
  assert.equal(r.diagnosis[0].evidence.browserQueueMs, 700);
});

test('a cross-origin entry without Timing-Allow-Origin says nothing', () => {
  const entry = { startTime: 1000, domainLookupStart: 0, domainLookupEnd: 0, connectStart: 0, connectEnd: 0, requestStart: 0 };
  assert.equal(browserQueue(entry), null);
  const r = report(entry, 400);
  refineNetworkVerdict(r);
  assert.equal(r.diagnosis[0].verdict, 'network-bound');
});
