// Taps for the ways a chat page receives an answer other than fetch: XMLHttpRequest (sse.js and
// the like), EventSource, and a push handle for any other transport (sockets: sockets.js). Each feeds the
// same sink as the fetch tap (stream.js `feed`), so the core, the report and the diagnosis are
// the same. Nothing here changes what the app sees: listeners are added, never removed or
// reordered, no event is consumed, and the app's objects are the ones it made. Arrival times
// are the events' own `timeStamp` (when the browser created the event, before any listener ran).

import { END_COMPLETE, END_ABORTED, END_FAILED } from '../words.js';


/** @typedef {import('../core/hub.js').Hub} Hub */
/** @typedef {import('../core/stream.js').StreamOptions} StreamOptions */

const encoder = typeof TextEncoder === 'function' ? new TextEncoder() : null;

/**
 * Event timestamps are on performance.now()'s clock in every current engine; else now.
 * @param {Event | null | undefined} e
 */
export function stampOf(e) {
  const t = e && e.timeStamp;
  const now = performance.now();
  return typeof t === 'number' && t > 0 && t <= now ? t : now;
}

/**
 * The bytes of a message's data: a string, an ArrayBuffer or a view; null for anything else.
 * @param {unknown} data
 */
export function bytesOf(data) {
  if (typeof data === 'string') return encoder ? encoder.encode(data) : null;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return null;
}

/** @param {any} e what was thrown or passed as the error */
function describe(e) {
  if (!e) return 'unknown error';
  return String(e.name ? `${e.name}: ${e.message}` : e.message || e).slice(0, 200);
}

/**
 * `name: value` lines (XHR's getAllResponseHeaders) as a Headers object; empty when unreadable.
 * @param {unknown} raw
 */
function headersOf(raw) {
  const h = new Headers();
  for (const line of String(raw || '').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    try {
      h.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
    } catch {
      /* a header the Headers class refuses: leave it out */
    }
  }
  return h;
}

/**
 * The push handle of `profiler.stream(options)`: `chunk(bytesOrText)`, `end()`, `error(e)`.
 * `options.contentType` tells the core what the chunks are (text/event-stream by default).
 * @param {Hub} p
 * @param {StreamOptions & { contentType?: string }} o
 */
export function pushHandle(p, o) {
  const res = { status: 200, headers: new Headers({ 'content-type': o.contentType || 'text/event-stream' }) };
  /** @type {import('../core/stream.js').Sink | null | false} */
  let f = null;
  try {
    f = p.feed(res, { ...o, transport: o.transport || 'push' });
  } catch {
    f = null;
  }
  let ended = false;
  // `at`: when it happened (performance.now()), for a relay that hands chunks over later;
  // now when not given.
  const when = (/** @type {unknown} */ at) => (typeof at === 'number' && at <= performance.now() ? at : performance.now());
  const finish = (/** @type {number} */ kind, /** @type {string} */ message, /** @type {unknown} */ at) => {
    if (ended || !f) return;
    ended = true;
    try {
      f.end(kind, when(at), message);
    } catch {
      /* tokenpaint's problem */
    }
  };
  return {
    /**
     * @param {string | ArrayBuffer | ArrayBufferView} data
     * @param {number} [at]
     */
    chunk(data, at) {
      try {
        const sink = !ended && f;
        const bytes = sink && bytesOf(data);
        if (sink && bytes && bytes.byteLength) sink.chunk(bytes, when(at));
      } catch {
        /* tokenpaint's problem */
      }
    },
    /** @param {number} [at] */
    end(at) {
      finish(END_COMPLETE, '', at);
    },
    /**
     * @param {unknown} e
     * @param {number} [at]
     */
    error(e, at) {
      finish(e && /** @type {Error} */ (e).name === 'AbortError' ? END_ABORTED : END_FAILED, describe(e), at);
    },
  };
}

/**
 * Profiles one XMLHttpRequest from its `send()`: the stream opens when the headers arrive, each
 * `progress` and `readystatechange` hands over the new part of `responseText` (a non-text
 * `responseType` is read once, at the end), and `loadend` ends it (aborted by `abort()`, failed
 * on `error` or `timeout`).
 * @param {Hub} p
 * @param {XMLHttpRequest} xhr
 * @param {StreamOptions} o
 */
export function tapXhr(p, xhr, o) {
  /** @type {import('../core/stream.js').Sink | null | false} */
  let f = null;
  let seen = 0;
  /** @type {number} */
  let kind = END_COMPLETE;
  let message = '';
  let done = false;
  const textual = () => xhr.responseType === '' || xhr.responseType === 'text';
  const openIfReady = () => {
    if (f || done || xhr.readyState < 2) return;
    f = p.feed({ status: xhr.status, headers: headersOf(xhr.getAllResponseHeaders()) }, { ...o, transport: 'xhr' }) || false;
  };
  const take = (/** @type {number} */ t) => {
    if (!f || !textual()) return;
    const text = xhr.responseText;
    if (text.length <= seen) return;
    const bytes = bytesOf(text.slice(seen));
    seen = text.length;
    if (bytes) f.chunk(bytes, t);
  };
  const onEvent = (/** @type {Event} */ e) => {
    try {
      if (done) return;
      const t = stampOf(e);
      openIfReady();
      if (e.type === 'abort') [kind, message] = [END_ABORTED, 'aborted by the application'];
      else if (e.type === 'error' || e.type === 'timeout') [kind, message] = [END_FAILED, `XMLHttpRequest ${e.type}`];
      else take(t);
      if (e.type !== 'loadend') return;
      done = true;
      if (!f) return;
      if (kind === END_COMPLETE && !textual()) {
        const bytes = bytesOf(xhr.response);
        if (bytes) f.chunk(bytes, t);
      }
      f.end(kind, t, message);
    } catch {
      /* tokenpaint's problem, not the app's */
    }
  };
  for (const type of ['readystatechange', 'progress', 'abort', 'error', 'timeout', 'loadend']) xhr.addEventListener(type, onEvent);
}

// Named SSE events of the formats the core reads (an EventSource only hands named events to
// listeners of that name); `options.events` adds others.
const NAMED_EVENTS = [
  'response.output_text.delta',
  'response.reasoning_summary_text.delta',
  'response.completed',
  'response.failed',
  'message_start',
  'content_block_delta',
  'message_delta',
  'message_stop',
  'error',
];

/**
 * Profiles an EventSource: every message event (named ones included) is an arrival, re-framed as
 * the SSE event it was. Each connection is a stream; a reconnect starts a new one, whose report's
 * `resumedFrom` is the last event id the one before it received. The app's `close()` fires no
 * event: it is noticed within 250 ms and the stream ends at its last event.
 * @param {Hub} p
 * @param {EventSource} es
 * @param {StreamOptions & { events?: string[] }} o
 */
export function tapEventSource(p, es, o) {
  /** @type {import('../core/stream.js').Sink | null | false} */
  let f = null;
  let first = true;
  let last = 0;
  let lastEventId = '';
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  const constructedAt = typeof o.start === 'number' ? o.start : performance.now();
  const start = (/** @type {number} */ t) => {
    const resumedFrom = first ? '' : lastEventId;
    f = p.feed({ status: 200, headers: new Headers({ 'content-type': 'text/event-stream' }) }, { ...o, start: t, resumedFrom, transport: 'eventsource' }) || false;
    first = false;
    timer = setInterval(() => {
      try {
        if (es.readyState === 2) stop(0, last || performance.now(), '');
      } catch {
        stop(2, performance.now(), 'EventSource unreadable');
      }
    }, 250);
  };
  const stop = (/** @type {number} */ kind, /** @type {number} */ t, /** @type {string} */ message) => {
    clearInterval(timer);
    if (f) f.end(kind, t, message);
    f = null;
  };
  // Each connection (the first, and every reconnect) opens a stream; its request started when
  // the EventSource was made, or when the reconnect began (the error before it).
  let reconnectAt = 0;
  const onOpen = (/** @type {Event} */ e) => {
    try {
      if (f === null) start(first ? constructedAt : reconnectAt || stampOf(e));
    } catch {
      /* tokenpaint's problem */
    }
  };
  const onMessage = (/** @type {MessageEvent} */ e) => {
    try {
      const t = stampOf(e);
      if (f === null) start(t);
      if (e.lastEventId) lastEventId = e.lastEventId;
      last = t;
      const head = e.type === 'message' ? '' : `event: ${e.type}\n`;
      const data = typeof e.data === 'string' ? e.data : '';
      const bytes = bytesOf(`${head}data: ${data.split('\n').join('\ndata: ')}\n\n`);
      if (f && bytes) f.chunk(bytes, t);
    } catch {
      /* tokenpaint's problem */
    }
  };
  const onError = (/** @type {Event} */ e) => {
    try {
      if (typeof MessageEvent === 'function' && e instanceof MessageEvent) return onMessage(e); // an event named "error"
      const t = stampOf(e);
      reconnectAt = t;
      if (f === null) return;
      // CONNECTING: the server closed or the connection dropped, and a reconnect follows (a new
      // stream); CLOSED: the connection failed for good.
      if (es.readyState === 2) stop(2, t, 'EventSource failed');
      else stop(0, t, '');
    } catch {
      /* tokenpaint's problem */
    }
  };
  try {
    es.addEventListener('open', onOpen);
    es.addEventListener('message', onMessage);
    for (const name of [...NAMED_EVENTS, ...(o.events || [])]) if (name !== 'error') es.addEventListener(name, onMessage);
    es.addEventListener('error', onError);
  } catch {
    /* unprofiled */
  }
}
