// The answer's start, from the page's own action (issue 58). The user's submits (an Enter in a
// text field, a click on a button, a form's submit: the Event Timing interaction that put the
// question on the page) are noted with the question they sent, and so is everything the page
// sends (request bodies, socket frames). An answer starts at the first request or frame after
// the submit that carried the question's text, however it travelled (JSON with escapes, a form,
// base64, protobuf bytes); failing that, at the submit itself. A layout, presence or heartbeat
// frame never carries the question, so it is never the ask. Where no submit was seen (a page that
// asks on its own), the caller falls back to the page's last POST or the socket's last frame.
// Pure: no DOM (the shell hands it the events); tested in Node (tests/native/asks.test.mjs).

import { normal } from './normal.js';

/** How long a submit or a request is looked back to (ms). */
const WINDOW_MS = 120000;
/** Requests and frames kept. */
const OUTS = 64;
/** Characters of a body or frame kept to look for the question in. */
const KEEP = 64 * 1024;

/**
 * The start of an answer: when, and what it was (`request`: an HTTP request carried the question;
 * `frame`: a socket frame did; `submit`: the user's submit), with the request's or socket's URL.
 * @typedef {{ t: number, by: 'request' | 'frame' | 'submit', url: string | null }} Ask
 * @typedef {{ t: number, url: string, frame: boolean, data: string | Uint8Array | null, n: string | null }} Out
 */

const utf8 = new TextDecoder();

/**
 * A body's or frame's text in letters and digits, whatever its form: JSON escapes decoded,
 * base64 decoded, bytes read as UTF-8.
 * @param {string | Uint8Array} data
 */
export function wireText(data) {
  let s = typeof data === 'string' ? data : utf8.decode(data);
  // A body that is all base64 (Mesop's protobuf requests) is read decoded too.
  const t = s.trim();
  if (typeof data === 'string' && t.length >= 16 && t.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(t)) {
    try {
      s += utf8.decode(Uint8Array.from(atob(t), (c) => c.charCodeAt(0)));
    } catch {
      /* not base64 after all */
    }
  }
  s = s.replace(/\\u([0-9a-fA-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  try {
    s = decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    /* not URL-encoded */
  }
  return normal(s);
}

export class Asks {
  constructor() {
    /** @type {Array<{ t: number, q: string }>} */
    this.submits = [];
    /** @type {Out[]} */
    this.outs = [];
  }

  /**
   * The user submitted `question` (the text field's value; '' when none) at `t`.
   * @param {number} t
   * @param {string} question
   */
  submit(t, question) {
    this.submits.push({ t, q: normal(question) });
    if (this.submits.length > 16) this.submits.shift();
  }

  /**
   * The page sent `data` (a body or a frame; null when it cannot be read) to `url` at `t`.
   * Returns the entry, whose `data` may be set later (a body read asynchronously).
   * @param {number} t
   * @param {string} url
   * @param {boolean} frame a socket frame (else an HTTP request)
   * @param {string | Uint8Array | null} data
   * @returns {Out}
   */
  out(t, url, frame, data) {
    const o = { t, url, frame, data: clip(data), n: null };
    this.outs.push(o);
    while (this.outs.length > OUTS || (this.outs.length > 1 && this.outs[0].t < t - WINDOW_MS)) this.outs.shift();
    return o;
  }

  /**
   * The start of an answer whose first event arrived at `first`, or null where no submit was seen.
   * @param {number} first
   * @returns {Ask | null}
   */
  find(first) {
    /** @type {{ t: number, q: string } | null} */
    let s = null;
    for (const x of this.submits) if (x.t <= first && first - x.t <= WINDOW_MS) s = x;
    if (!s) return null;
    const sub = s;
    if (sub.q) {
      for (const o of this.outs) {
        if (o.t < sub.t || o.t > first || o.data === null) continue;
        if (o.n === null) o.n = wireText(o.data);
        if (o.n.includes(sub.q)) return { t: o.t, by: o.frame ? 'frame' : 'request', url: o.url };
      }
    }
    return { t: sub.t, by: 'submit', url: null };
  }
}

/**
 * @param {string | Uint8Array | null} data
 * @returns {string | Uint8Array | null}
 */
function clip(data) {
  if (data === null) return null;
  return data.length > KEEP ? data.slice(0, KEEP) : data;
}

/**
 * What a request body or a frame holds, as far as can be read at once: text, or a copy of its
 * bytes; a Blob or a stream is read later (`later` gets it), anything else is null.
 * @param {unknown} body
 * @param {(data: string | Uint8Array) => void} later
 * @returns {string | Uint8Array | null}
 */
export function bodyData(body, later) {
  try {
    if (body === null || body === undefined) return null;
    if (typeof body === 'string') return body.length > KEEP ? body.slice(0, KEEP) : body;
    if (typeof URLSearchParams === 'function' && body instanceof URLSearchParams) return String(body);
    if (body instanceof ArrayBuffer) return new Uint8Array(body, 0, Math.min(KEEP, body.byteLength)).slice();
    if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, Math.min(KEEP, body.byteLength)).slice();
    if (typeof FormData === 'function' && body instanceof FormData) {
      let s = '';
      for (const [k, v] of body) if (typeof v === 'string') s += `${k}=${v}\n`;
      return s;
    }
    if (typeof Blob === 'function' && body instanceof Blob) {
      body.slice(0, KEEP).arrayBuffer().then((b) => later(new Uint8Array(b)), () => {});
      return null;
    }
  } catch {
    /* a body tokenpaint cannot read */
  }
  return null;
}
