// What the test apps share: their own reading of an OpenAI SSE body (not tokenpaint's), and the
// truth they compute from what they recorded.

/**
 * Yields the content of each event of an SSE body, with the time its chunk was read: an OpenAI
 * chunk's delta, or what `contentOf` takes from each event's JSON.
 */
export async function* deltas(body, contentOf = (e) => e.choices?.[0]?.delta?.content) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const t = performance.now();
    buf += value;
    const events = buf.split('\n\n');
    buf = events.pop();
    for (const ev of events) {
      const data = ev.startsWith('data: ') ? ev.slice(6) : null;
      if (!data || data === '[DONE]') continue;
      const content = contentOf(JSON.parse(data));
      if (content) yield { content, t };
    }
  }
}

/** `body` passed through, each chunk's text pushed to `into` as it is read (what the app received). */
export function recording(body, into) {
  const text = new TextDecoder();
  return body.pipeThrough(
    new TransformStream({
      transform(chunk, c) {
        into.push(text.decode(chunk, { stream: true }));
        c.enqueue(chunk);
      },
    }),
  );
}

/** The median of the finite values, or null. */
export function median(v) {
  const s = v.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The median of (the commit that first showed a delta − its arrival), from `arrivals`
 * ([answer length so far, time read]) and `commits` ([answer length on screen, time]).
 */
export function commitTruth(arrivals, commits) {
  return median(
    arrivals.map(([end, t]) => {
      const c = commits.find(([len]) => len >= end);
      return c ? c[1] - t : null;
    }),
  );
}

/**
 * The page's own paint truth: `mark(t)` after a DOM change for a delta the app got at `t`; the
 * next frame's rAF callback, then a task posted from it (user-blocking where the scheduler
 * exists, else a message), stamps it painted. `median()` is the median of painted − got.
 */
export function paintTruth() {
  const lags = [];
  let waiting = [];
  let framed = [];
  let first = null;
  let last = null;
  let frame = null;
  let lastFrame = null;
  const stamp = () => {
    const now = performance.now();
    if (first === null && framed.length) first = now;
    if (framed.length) {
      last = now;
      lastFrame = frame;
    }
    for (const t of framed) lags.push(now - t);
    framed = [];
  };
  const ch = new MessageChannel();
  ch.port1.onmessage = stamp;
  const post = globalThis.scheduler?.postTask ? () => scheduler.postTask(stamp, { priority: 'user-blocking' }) : () => ch.port2.postMessage(0);
  return {
    mark(t) {
      if (!waiting.length) {
        requestAnimationFrame(() => {
          frame = performance.now();
          framed = framed.concat(waiting);
          waiting = [];
          post();
        });
      }
      waiting.push(t);
    },
    median() {
      return median(lags);
    },
    /** When the first change was stamped painted (null before). */
    first() {
      return first;
    },
    /** When the last change was stamped painted (null before). */
    last() {
      return last;
    },
    /**
     * When the rAF callback of the frame that painted the last change ran (null before): that
     * frame's paint came after it and before `last()`. On a loaded machine the posted task that
     * stamps `last()` can run well after the paint; this end of the bracket cannot.
     */
    lastFrame() {
      return lastFrame;
    },
    /** The `q` quantile of painted − got (nearest rank). */
    quantile(q) {
      if (!lags.length) return null;
      const s = [...lags].sort((a, b) => a - b);
      return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
    },
  };
}
