// The Resource Timing entry of a stream's request, joined once the stream is over: connection
// set-up, the request, the server's first byte (`responseStart`, the network-side reference for
// arrival), and any Server-Timing the browser exposes. The entry appears only after the body
// has been read to its end, and may never appear (buffer full, a cancelled body): nothing waits
// for it. Cross-origin entries without Timing-Allow-Origin have zeroed fields: unknown, not zero.

/**
 * The Resource Timing entry of the request to `url` that started at `start` and whose body ended
 * at `end` (performance.now() times). With `start` unknown (NaN: a tracked response), the entry
 * is the one that ended nearest `end` among those that started before `before` (the headers'
 * arrival). Null when there is none.
 */
export function findEntry(url, start, end, before = Infinity) {
  let entry = null;
  try {
    if (url && globalThis.performance && performance.getEntriesByName) {
      const candidates = performance.getEntriesByName(url, 'resource');
      // The entry of this request: it started when the app called fetch and ended when the body
      // did. Requests to one URL started together (a load test) differ by their end.
      let best = Infinity;
      const known = Number.isFinite(start);
      for (const e of candidates) {
        const d = known ? Math.abs(e.startTime - start) : 0;
        if (d >= 100 || (!known && !(e.startTime <= before))) continue;
        const off = end > 0 && e.responseEnd > 0 ? Math.abs(e.responseEnd - end) : known ? 0 : Infinity;
        if (!known && off >= 100) continue;
        const score = d + off;
        if (score < best) {
          best = score;
          entry = e;
        }
      }
    }
  } catch {
    entry = null;
  }
  return entry;
}

/**
 * Adds `resourceTiming` to `report` (ms from the request start), or names it unavailable. `end`
 * is when the body ended (performance.now()), if known.
 */
export function joinResourceTiming(report, url, start, end) {
  const entry = findEntry(url, start, end);
  if (!entry) {
    report.resourceTiming = null;
    if (Array.isArray(report.unavailable)) report.unavailable.push('resource-timing');
    return;
  }
  const t0 = report.startTime;
  const at = (v) => (v > 0 ? Math.round((v - t0) * 100) / 100 : null);
  const span = (a, b) => (a > 0 && b > 0 ? Math.round((b - a) * 100) / 100 : null);
  report.resourceTiming = {
    startTime: at(entry.startTime),
    dns: span(entry.domainLookupStart, entry.domainLookupEnd),
    connect: span(entry.connectStart, entry.connectEnd),
    requestStart: at(entry.requestStart),
    responseStart: at(entry.responseStart),
    responseEnd: at(entry.responseEnd),
    browserQueue: browserQueue(entry),
    protocol: entry.nextHopProtocol || null,
    serverTiming: Array.from(entry.serverTiming || [], (s) => ({ name: s.name, dur: s.duration, desc: s.description || null })),
  };
}

/**
 * How long the request waited in the browser before it was sent (ms): from its start to the
 * request leaving, less the connection's own set-up (DNS, TCP, TLS), which is network time. A
 * cold connection to a distant API is slow to set up, not queued. Null when unknown
 * (cross-origin without Timing-Allow-Origin zeroes these fields).
 */
export function browserQueue(entry) {
  if (!(entry.requestStart > 0) || !(entry.startTime >= 0)) return null;
  const setup = (a, b) => (a > 0 && b >= a ? b - a : 0);
  const dns = setup(entry.domainLookupStart, entry.domainLookupEnd);
  const connect = setup(entry.connectStart, entry.connectEnd);
  return Math.max(0, Math.round((entry.requestStart - entry.startTime - dns - connect) * 100) / 100);
}

/**
 * A request that waited in the browser before it was sent (HTTP/1.1 allows 6 connections per
 * host) looks like network time to the core: Resource Timing's queueing part tells them apart,
 * so a `network-bound` verdict whose time was spent before the request left is corrected.
 */
export function refineNetworkVerdict(report) {
  const rt = report.resourceTiming;
  const d = report.diagnosis;
  if (!rt || !Array.isArray(d) || rt.browserQueue === null || rt.browserQueue === undefined) return;
  const i = d.findIndex((v) => v.verdict === 'network-bound');
  const network = i >= 0 ? d[i].evidence.networkMs : null;
  const queued = rt.browserQueue;
  if (i < 0 || !(queued > 100) || !(queued >= 0.5 * network)) return;
  d[i] = {
    verdict: 'browser-queued',
    evidence: { browserQueueMs: queued, networkMs: network },
    fix: 'The request waited in the browser before it was sent: browsers open at most 6 HTTP/1.1 connections per host. Serve the API over HTTP/2 or HTTP/3, or run fewer streams at once.',
  };
}
