// The tap: hands the application a body that is byte-identical to the response's, and stamps
// each chunk on its way through.
//
// Rather than tee() (whose unread branch would buffer the whole stream), the app gets a
// pass-through stream that reads the original body ahead of the app by at most READ_AHEAD (1 MiB):
// chunks are stamped when the network hands them over, the app's own pace still limits how far
// the network is read, a cancel by the app reaches the network, and an error from the network
// reaches the app unchanged. Each chunk is enqueued for the app first; the sink only notes it
// with its time, so the app never waits for tokenpaint.

import { END_COMPLETE, END_ABORTED, END_FAILED } from '../words.js';

/**
 * Returns a Response with the same status, headers and url as `res` whose body passes through
 * `sink.chunk(bytes, t)`, then `sink.end(kind, t, message)` (kind: END_COMPLETE, END_ABORTED or
 * END_FAILED, js/words.js).
 * Returns `res` itself when it has no body or cannot be wrapped.
 * @param {Response} res
 * @param {Pick<import('../core/stream.js').Sink, 'chunk' | 'end'>} sink
 */
export function tap(res, sink) {
  if (!res || !res.body || res.bodyUsed) return res;
  /** @type {ReadableStreamDefaultReader<Uint8Array> | null} */
  let reader = null;
  const source = res.body;
  const body = new ReadableStream(
    {
      async pull(controller) {
        if (reader === null) reader = source.getReader();
        let r;
        try {
          r = await /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (reader).read();
        } catch (/** @type {any} */ e) {
          quietly(() => sink.end(e && e.name === 'AbortError' ? END_ABORTED : END_FAILED, performance.now(), describe(e)));
          controller.error(e);
          return;
        }
        const t = performance.now();
        if (r.done) {
          controller.close();
          quietly(() => sink.end(END_COMPLETE, t, ''));
          return;
        }
        const chunk = r.value;
        controller.enqueue(chunk);
        // The app's read is resolved first; the sink only notes the chunk and its time (it is
        // looked at later, never before the app has it).
        try {
          sink.chunk(chunk, t); // per chunk: no closure, unlike the rare calls below
        } catch {
          /* tokenpaint's problem, not the app's */
        }
      },
      cancel(reason) {
        quietly(() => sink.end(END_ABORTED, performance.now(), 'cancelled by the application'));
        return (reader || source).cancel(reason);
      },
    },
    // READ_AHEAD: 1 MiB, written in place (a bundler inlines no constant of a module that imports).
    { highWaterMark: 1 << 20, size: (chunk) => (chunk && chunk.byteLength) || 1 },
  );
  let out;
  try {
    out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  } catch {
    return res; // the original body was not touched yet: give it back as it is
  }
  // A constructed Response has an empty url and type "default"; keep what the app would see.
  for (const key of /** @type {const} */ (['url', 'redirected', 'type'])) {
    try {
      Object.defineProperty(out, key, { value: res[key], enumerable: true });
    } catch {
      /* keep the constructed value */
    }
  }
  return out;
}

// The sink never throws into the app's stream.
/** @param {() => void} fn */
function quietly(fn) {
  try {
    fn();
  } catch {
    /* tokenpaint's problem, not the app's */
  }
}

/** @param {unknown} e */
function describe(e) {
  if (!e) return 'unknown error';
  return String(/** @type {Error} */ (e).name ? `${/** @type {Error} */ (e).name}: ${/** @type {Error} */ (e).message}` : e).slice(0, 200);
}
