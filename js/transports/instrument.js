// Global instrumentation: `profiler.instrument({ match })` patches fetch, XMLHttpRequest,
// EventSource and WebSocket so that requests whose URL matches are profiled, whatever library
// makes them (sse.js, socket.io-client, an SDK without a fetch option). Requests that do not
// match go straight to the originals and are not wrapped at all. The app keeps its own objects:
// an XMLHttpRequest, EventSource or WebSocket is the native one, with listeners added. Installing
// twice returns the same undo; undo puts the originals back (where nobody patched over them).
// Socket.IO over WebSocket is read too, but socket.io-client keeps the WebSocket constructor it
// finds when it loads: instrument before it loads, or use `track(socket)`.

import { urlOf, fullUrlOf } from '../core/url.js';
import { tapXhr, tapEventSource } from './transports.js';
import { tapSocket, tapPolling, sentAt } from './sockets.js';
import { asked, asks } from './answers.js';
import { bodyData } from './asks.js';

/** @typedef {import('../core/hub.js').Hub} Hub */
/** @typedef {import('../index.js').InstrumentOptions & { guess?: boolean, extract?: any, events?: string[] }} Options */
/**
 * The profiler's fetch, for a request instrument() lets through to `original`.
 * @typedef {(input: RequestInfo | URL, init: RequestInit | undefined, label: string | undefined, original: typeof fetch, extra: { guess: boolean }) => Promise<Response>} ProfiledFetch
 */

/** @type {{ undo: () => void, refetch: () => boolean } | null} */
let installed = null;

/**
 * Whether `url` matches a string (contained), a RegExp, or a function; false when it throws.
 * @param {Options['match'] | null} match
 */
function matcher(match) {
  return (/** @type {string} */ url) => {
    try {
      if (match === undefined || match === null) return true;
      if (typeof match === 'string') return url.includes(match);
      if (match instanceof RegExp) return match.test(url);
      if (typeof match === 'function') return match(url) === true;
    } catch {
      /* the app's matcher failed: leave the request alone */
    }
    return false;
  };
}

/**
 * @param {Hub} p
 * @param {Options} o
 * @param {string | URL} input
 */
function optionsFor(p, o, input) {
  return {
    start: performance.now(),
    url: urlOf(input, null),
    fullUrl: fullUrlOf(input, null),
    target: o.target || null,
    format: o.format,
    label: o.label !== undefined ? String(o.label) : p.options.label,
    extract: o.extract,
    events: o.events,
    guess: guessing(o),
    asks: true,
  };
}

// Without a `match` (or with `guess: true`, as the injected script does) every request is
// profiled, and only the streams found to carry an answer are reported.
/** @param {Options} o */
function guessing(o) {
  return o.guess === true || (o.guess !== false && (o.match === undefined || o.match === null));
}

// An ask: a request that sends something (the question of an answer that may come elsewhere).
const ASKS = new Set(['POST', 'PUT', 'PATCH']);
/**
 * @param {RequestInfo | URL} input
 * @param {RequestInit | undefined} init
 */
function methodOf(input, init) {
  try {
    return String((init && init.method) || (input && typeof input === 'object' && 'method' in input && input.method) || 'GET').toUpperCase();
  } catch {
    return 'GET';
  }
}

/**
 * A request the page sends, for the answer's start (asks.js): its body, read at once where it can
 * be (a Request's own body from a copy of it, later).
 * @param {RequestInfo | URL} input
 * @param {RequestInit | undefined} init
 * @param {string} url
 */
function fetched(input, init, url) {
  try {
    const t = performance.now();
    const method = methodOf(input, init);
    if (ASKS.has(method)) asked(t);
    if (method === 'GET' || method === 'HEAD') return;
    const o = asks.out(t, url, false, null);
    const later = (/** @type {string | Uint8Array} */ d) => (o.data = d);
    o.data = bodyData(init && init.body, later);
    if (o.data === null && !(init && init.body) && typeof Request === 'function' && input instanceof Request && input.body) {
      input.clone().arrayBuffer().then((b) => later(new Uint8Array(b, 0, Math.min(b.byteLength, 65536))), () => {});
    }
  } catch {
    /* the start falls back */
  }
}

/**
 * A constructor that makes the original's instances, tapped when their URL matches.
 * @param {any} Original the page's EventSource or WebSocket
 * @param {(made: any, url: string) => unknown} tap
 */
function constructorLike(Original, tap) {
  /**
   * @param {string | URL} url
   * @param {unknown} [second]
   */
  function Patched(url, second) {
    if (!new.target) return Original(url, second); // throws as the original does
    const made = arguments.length > 1 ? new Original(url, second) : new Original(url);
    try {
      tap(made, String(url));
    } catch {
      /* unprofiled, unchanged */
    }
    return made;
  }
  Patched.prototype = Original.prototype;
  Object.setPrototypeOf(Patched, Original);
  Object.defineProperty(Patched, 'name', { value: Original.name });
  return Patched;
}

/**
 * @param {Hub} p
 * @param {Options} o
 * @param {ProfiledFetch} profiledFetch
 */
export function instrument(p, o = {}, profiledFetch) {
  if (installed) return installed.undo;
  // Guessing which streams carry answers: the learning chunk is loaded now, before they come.
  if (guessing(o)) p.learning.load();
  const g = /** @type {any} */ (globalThis);
  // A library may have kept a patched function (socket.io-client keeps the WebSocket it found):
  // after undo, those profile nothing either.
  let active = true;
  const wanted = matcher(o.match);
  const matches = (/** @type {string} */ url) => active && wanted(url);
  /** @type {Array<[any, string, unknown, unknown]>} */
  const saved = [];
  const swap = (/** @type {any} */ holder, /** @type {string} */ key, /** @type {unknown} */ value) => {
    saved.push([holder, key, holder[key], value]);
    holder[key] = value;
  };
  const patchFetch = (/** @type {typeof fetch} */ original) =>
    /**
     * @this {any}
     * @param {RequestInfo | URL} input
     * @param {RequestInit} [init]
     */
    function fetch(input, init) {
      let url = '';
      try {
        url = fullUrlOf(input, null);
      } catch {
        /* not a URL tokenpaint can read */
      }
      if (active) fetched(input, init, url);
      if (!url || !matches(url)) return original.call(this, input, init);
      return profiledFetch(input, init, o.label !== undefined ? String(o.label) : p.options.label, original, { guess: guessing(o) });
    };
  if (typeof g.fetch === 'function') swap(g, 'fetch', patchFetch(g.fetch));
  if (typeof g.XMLHttpRequest === 'function') {
    const proto = g.XMLHttpRequest.prototype;
    const open = proto.open;
    const send = proto.send;
    const urls = new WeakMap();
    swap(proto, 'open', /** @this {any} */ function (/** @type {string} */ method, /** @type {string | URL} */ url) {
      try {
        urls.set(this, [String(method).toUpperCase(), String(url)]);
      } catch {
        /* unprofiled */
      }
      return open.apply(this, /** @type {any} */ (arguments));
    });
    swap(proto, 'send', /** @this {any} */ function () {
      try {
        const [method, url] = urls.get(this) || [];
        const full = url === undefined ? '' : fullUrlOf(url, null);
        if (active && ASKS.has(method)) {
          asked(performance.now());
          const o = asks.out(performance.now(), full, false, null);
          o.data = bodyData(arguments[0], (d) => (o.data = d));
        }
        // Socket.IO's long-polling: each poll is a batch of a socket's messages, not an answer.
        if (/[?&]EIO=\d/.test(full) && /[?&]transport=polling/.test(full)) {
          if (matches(full)) tapPolling(p, this, optionsFor(p, o, url), full, method);
        } else if (full && matches(full)) tapXhr(p, this, optionsFor(p, o, url));
      } catch {
        /* unprofiled */
      }
      return send.apply(this, /** @type {any} */ (arguments));
    });
  }
  if (typeof g.EventSource === 'function') {
    swap(g, 'EventSource', constructorLike(g.EventSource, (/** @type {EventSource} */ es, /** @type {string} */ url) => matches(fullUrlOf(url, null)) && tapEventSource(p, es, optionsFor(p, o, url))));
  }
  if (typeof g.WebSocket === 'function') {
    swap(g, 'WebSocket', constructorLike(g.WebSocket, (/** @type {WebSocket} */ ws, /** @type {string} */ url) => matches(fullUrlOf(url, null)) && tapSocket(p, ws, optionsFor(p, o, url))));
    // When a socket sends (the app's ask): the request start of the answer that follows.
    const send = g.WebSocket.prototype.send;
    swap(g.WebSocket.prototype, 'send', /** @this {any} */ function () {
      try {
        if (active) {
          const t = performance.now();
          sentAt.set(this, t);
          const o = asks.out(t, String(this.url), true, null);
          o.data = bodyData(arguments[0], (d) => (o.data = d));
        }
      } catch {
        /* unprofiled */
      }
      return send.apply(this, /** @type {any} */ (arguments));
    });
  }
  const unlisten = listenSubmits();
  const undo = () => {
    if (!installed || installed.undo !== undo) return;
    unlisten();
    for (const [holder, key, original, ours] of saved.reverse()) if (holder[key] === ours) holder[key] = original;
    active = false;
    installed = null;
    asked(-Infinity);
  };
  // The page put a native fetch of its own in place of ours (taken from a fresh iframe, say): it
  // is patched in turn. A function of the page's, which most likely calls ours, is left alone.
  const refetch = () => {
    const f = g.fetch;
    if (!active || typeof f !== 'function' || saved.some((x) => x[3] === f) || !isNative(f)) return false;
    swap(g, 'fetch', patchFetch(f));
    return true;
  };
  installed = { undo, refetch };
  return undo;
}

// Text fields a question is typed in.
const FIELD = /^(?:text|search|)$/i;
/** @param {EventTarget | null} el */
function field(el) {
  const e = /** @type {HTMLElement | null} */ (el);
  return !!e && (e.tagName === 'TEXTAREA' || (e.tagName === 'INPUT' && FIELD.test(/** @type {HTMLInputElement} */ (e).type)) || e.isContentEditable === true);
}
/** @param {HTMLElement | null} el */
function valueOf(el) {
  if (!el) return '';
  const v = /** @type {HTMLInputElement} */ (el).value;
  return typeof v === 'string' ? v : el.textContent || '';
}
// When the user acted: the event's own time (the Event Timing interaction's start), where the
// engine gives it on the page's clock (jsdom gives the epoch).
/** @param {Event} e */
function when(e) {
  const now = performance.now();
  return e.timeStamp > 0 && e.timeStamp <= now ? e.timeStamp : now;
}
/** @param {Event} e */
function origin(e) {
  const path = typeof e.composedPath === 'function' ? e.composedPath() : [];
  return /** @type {HTMLElement | null} */ (path.length ? path[0] : e.target);
}

/**
 * The user's submits, for the answer's start (asks.js): an Enter in a text field (not Shift+Enter,
 * not while composing), a click on a button or link, a form's submit; each with the question
 * the field held. Listened to first (on the window, capturing), before the app clears the field.
 * Returns the undo.
 */
function listenSubmits() {
  if (typeof addEventListener !== 'function') return () => {};
  /** @type {HTMLElement | null} */
  let last = null;
  const listeners = /** @type {Array<[string, (e: any) => void]>} */ ([
    ['input', (/** @type {Event} */ e) => field(origin(e)) && (last = origin(e))],
    [
      'keydown',
      (/** @type {KeyboardEvent} */ e) => {
        if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return;
        const el = origin(e);
        if (field(el)) asks.submit(when(e), valueOf(el));
      },
    ],
    [
      'click',
      (/** @type {MouseEvent} */ e) => {
        const el = origin(e);
        if (el && typeof el.closest === 'function' && el.closest('button, [role="button"], input[type="submit"], input[type="button"], a')) asks.submit(when(e), valueOf(last));
      },
    ],
    ['submit', (/** @type {Event} */ e) => asks.submit(when(e), valueOf(last))],
  ]);
  const guarded = listeners.map(([type, fn]) => /** @type {[string, (e: Event) => void]} */ ([type, (e) => {
    try {
      fn(e);
    } catch {
      /* the start falls back */
    }
  }]));
  for (const [type, fn] of guarded) addEventListener(type, fn, true);
  return () => {
    for (const [type, fn] of guarded) removeEventListener(type, fn, true);
  };
}

/** After `instrument`: patches a native fetch that replaced the patched one; whether it did. */
export function refetch() {
  return installed ? installed.refetch() : false;
}

/** @param {Function} f */
function isNative(f) {
  try {
    return /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(f));
  } catch {
    return false;
  }
}
