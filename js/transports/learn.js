// Finding the answer in a wire format no reader knows (issue 47). Each event of a stream or a
// socket (SSE data, a line, a text frame, a Socket.IO event, UTF-8 runs of a binary frame) is
// taken apart into its string values, each at a path (`msg=process_generating/output/data/1/1/
// content/0/text`); diffs that patch a value the stream sent whole (`["append", [1, "content", 0,
// "text"], "tok"]`, as Gradio sends them) are applied first, so a patched value is read at its
// own path. For each path two readings are kept: the values joined (deltas) and the last value
// (snapshots, when each extends the one before). The page decides which path is the answer:
// once the text of a changed element holds what one of them carried, across at least three
// events, that path is followed, and every event kept before is read again with its own arrival
// time. Heartbeats, status messages and echoes of the question never grow on the page, so they
// are never learned. Pure: no DOM, no timers; tested in Node (tests/native/learn.test.mjs).

// Keys whose string value names what an object is: they become part of the path, so that the
// answer's deltas and, say, reasoning deltas of the same shape stay apart.
const KINDS = ['type', 'msg', 'event', 'object', 'role', 'kind'];
// Keys whose string value names an answer, on a socket that carries many.
const IDS = ['message_id', 'messageId', 'event_id', 'eventId', 'request_id', 'response_id', 'id'];
// An event after the answer whose kind says it is over.
const END = /(?:^|[^a-z])(?:complete[d]?|done|finish(?:ed)?|end(?:ed)?|stop(?:ped)?|close[d_]?)/i;

const MAX_EVENTS = 4096;
const MAX_BYTES = 4 * 1024 * 1024;
const MAX_DEPTH = 12;
// Matching: the shortest run of an answer's text, in letters and digits, that the page must show.
const MIN_MATCH = 8;
const MIN_EVENTS = 3;

/**
 * Letters and digits only, lower case: what survives any renderer's markup and spacing.
 * @param {unknown} text
 */
export function normal(text) {
  let out = '';
  for (const ch of String(text).toLowerCase()) if (/[\p{L}\p{N}]/u.test(ch)) out += ch;
  return out;
}

// An array of diffs: each `[op, [key, …], value]` with op one of Gradio's.
const OPS = new Set(['append', 'replace', 'add', 'delete']);
/**
 * @param {unknown} v
 * @returns {v is Array<[string, Array<string | number>, unknown]>}
 */
function isDiffs(v) {
  return Array.isArray(v) && v.length > 0 && v.every((d) => Array.isArray(d) && d.length === 3 && OPS.has(d[0]) && Array.isArray(d[1]));
}

// Applies diffs to a copy of `base` (which is kept unchanged).
/**
 * @param {unknown} base
 * @param {Array<[string, Array<string | number>, unknown]>} diffs
 * @returns {any}
 */
function patch(base, diffs) {
  /** @type {any} */
  let root = clone(base);
  for (const [op, at, value] of diffs) {
    if (!at.length) {
      root = op === 'append' && typeof root === 'string' ? root + value : op === 'delete' ? null : clone(value);
      continue;
    }
    let node = root;
    for (let i = 0; i < at.length - 1 && node && typeof node === 'object'; i++) node = node[at[i]];
    if (!node || typeof node !== 'object') continue;
    const k = at[at.length - 1];
    if (op === 'append') node[k] = (typeof node[k] === 'string' ? node[k] : '') + (typeof value === 'string' ? value : '');
    else if (op === 'delete') Array.isArray(node) ? node.splice(/** @type {number} */ (k), 1) : delete node[k];
    else node[k] = clone(value);
  }
  return root;
}

/**
 * @param {unknown} v
 * @returns {any}
 */
function clone(v) {
  return v && typeof v === 'object' ? JSON.parse(JSON.stringify(v)) : v;
}

/**
 * @param {string} text
 * @returns {unknown}
 */
function parse(text) {
  const t = text.trimStart();
  if (t[0] !== '{' && t[0] !== '[') return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/**
 * The string values of `value` as `[path, string]`, into `out`; `ids` gets the answer's id if
 * one is named; `kinds` the kinds named at the top (for end markers); `state` holds the last
 * whole value at each path that diffs patch.
 * @param {any} value
 * @param {string} path
 * @param {Array<[string, string]>} out
 * @param {Meta} meta
 * @param {Map<string, unknown>} state
 * @param {number} depth
 * @returns {void}
 */
function leaves(value, path, out, meta, state, depth) {
  if (depth > MAX_DEPTH || value === null || value === undefined) return;
  if (typeof value === 'string') {
    // JSON sent as a string inside JSON (a frame inside an envelope) is read as JSON.
    const inner = value.length > 1 ? parse(value) : undefined;
    if (inner !== undefined && typeof inner === 'object') return leaves(inner, path, out, meta, state, depth + 1);
    out.push([path, value]);
    return;
  }
  if (typeof value !== 'object') return;
  if (isDiffs(value)) {
    const base = state.get(path);
    if (base === undefined) return;
    const next = patch(base, value);
    state.set(path, next);
    return leaves(next, path, out, meta, state, depth + 1);
  }
  if (path && depth > 0) state.set(path, value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) leaves(value[i], `${path}/${i}`, out, meta, state, depth + 1);
    return;
  }
  let here = path;
  for (const k of KINDS) {
    const v = value[k];
    if (typeof v === 'string' && v.length < 80) {
      here += `[${k}=${v}]`;
      if (depth <= 1) meta.kinds.push(v);
    }
  }
  if (meta.id === null) {
    for (const k of IDS) {
      const v = value[k];
      if ((typeof v === 'string' && v) || typeof v === 'number') {
        meta.id = String(v);
        break;
      }
    }
  }
  if (value.done === true && depth <= 2) meta.done = true;
  if (depth === 0 && typeof value.msg === 'string') meta.msg = value.msg;
  for (const k of Object.keys(value)) {
    if (KINDS.includes(k) || IDS.includes(k)) continue;
    leaves(value[k], `${here}/${k}`, out, meta, state, depth + 1);
  }
}

/**
 * What an event names besides its values: the answer's id, the kinds at its top, whether it is
 * done, and Gradio's `msg`.
 * @typedef {{ id: string | null, kinds: string[], done: boolean, msg: string | null }} Meta
 * @typedef {{ values: Array<[string, string]> } & Meta} Read
 * @typedef {{ t: number, id: string | null, delta?: string, text?: string, done?: boolean }} Item
 */

// A path's two readings: its values joined, and the last value with how often it grew.
class Path {
  constructor() {
    this.joined = '';
    this.joinedEvents = 0;
    this.last = '';
    this.grew = 0;
    this.changes = 0;
    this.events = 0;
  }

  /** @param {string} value */
  take(value) {
    this.events++;
    if (value) {
      this.joined += value;
      this.joinedEvents++;
    }
    if (value.length > this.last.length && value.startsWith(this.last)) this.grew++;
    // A value sent again unchanged (the question, in every snapshot of the conversation) is not
    // a delta.
    if (value && value !== this.last) this.changes++;
    this.last = value;
  }
}

/**
 * One stream's or socket's learner. `event(t, data, name)` takes an event (a string, bytes, or
 * a value already parsed, e.g. a Socket.IO event's arguments) and returns what it carries of the
 * answer once the path is learned: `[{ t, id, delta | text, done }]`, else `[]` (the event is
 * kept). `shown(text)` hands it the text of an element the page changed: true when that taught
 * it the path (then `replay()` gives the kept events' items).
 */
/**
 * Where an answer was found in a protocol: its path, read as deltas or snapshots, by a reader
 * (`format`, and its `match`) or learned from the page.
 * @typedef {{ path: string, mode: string, by: string, format: string | null, match: any }} Learned
 */

export class Learner {
  /** `readers`: whether the apps' readers (READERS) may claim the stream from its first events. */
  constructor({ readers = false } = {}) {
    /** @type {Map<string, Path>} */
    this.paths = new Map();
    /** @type {Array<[number, Read, number]>} */
    this.kept = [];
    this.keptBytes = 0;
    /** @type {Map<string, unknown>} */
    this.state = new Map();
    /** @type {Learned | null} */
    this.learned = null;
    this.seen = 0;
    this.readers = readers;
    /** @type {(typeof READERS)[number] | false | null} */
    this.reader = null;
    /** @type {string | null} */
    this.first = null;
    this.same = true;
    this.lastAnswerAt = -1;
  }

  /**
   * The values of one event: [[path, string]], its id and end marks.
   * @param {unknown} data
   * @param {string} [name]
   * @returns {Read}
   */
  read(data, name) {
    /** @type {Meta} */
    const meta = { id: null, kinds: [], done: false, msg: null };
    /** @type {Array<[string, string]>} */
    const out = [];
    const prefix = name ? `${name}` : '';
    if (typeof data === 'string') {
      const v = parse(data);
      if (v === undefined) out.push([`${prefix}$text`, data]);
      else leaves(v, prefix, out, meta, this.state, 0);
    } else if (data instanceof Uint8Array) {
      // A binary frame: JSON in UTF-8 is read as JSON; else its UTF-8 runs, each a value at its
      // index.
      const v = parse(new TextDecoder().decode(data));
      if (v !== undefined) leaves(v, prefix, out, meta, this.state, 0);
      else {
        let i = 0;
        for (const run of utf8Runs(data)) out.push([`${prefix}$bytes/${i++}`, run]);
      }
    } else if (data !== undefined) leaves(data, prefix, out, meta, this.state, 0);
    return { values: out, ...meta };
  }

  /**
   * @param {number} t
   * @param {unknown} data
   * @param {string} [name]
   * @returns {Item[]}
   */
  event(t, data, name) {
    this.seen++;
    // A stream whose every event is the same (a heartbeat's `ALIVE`) has nothing to teach.
    const sig = typeof data === 'string' ? data : data instanceof Uint8Array ? data.length : JSON.stringify(data);
    if (this.seen === 1) this.first = `${name}\u0000${sig}`;
    else if (this.same && this.first !== `${name}\u0000${sig}`) this.same = false;
    const ev = this.read(data, name);
    if (this.learned) return this.items(t, ev);
    for (const [path, value] of ev.values) {
      let p = this.paths.get(path);
      if (!p) {
        if (this.paths.size > 512) continue;
        this.paths.set(path, (p = new Path()));
      }
      p.take(value);
    }
    this.keep(t, ev);
    // An app whose protocol a reader knows: its path is known from the wire alone.
    if (this.readers && this.seen <= 2 && this.reader === null) this.reader = READERS.find((r) => r.claims(ev)) || false;
    if (this.reader) {
      const path = this.reader.path(ev);
      if (path) {
        this.learned = { path, mode: this.reader.mode, by: 'reader', format: this.reader.name, match: this.reader.match(path) };
        return this.replay();
      }
    }
    return [];
  }

  // Keeps an event to read again once the path is learned: the newest MAX_EVENTS events, at
  // most MAX_BYTES of their values (a socket's old events go first).
  /**
   * @param {number} t
   * @param {Read} ev
   */
  keep(t, ev) {
    const size = ev.values.reduce((n, [, v]) => n + v.length, 0);
    this.kept.push([t, ev, size]);
    this.keptBytes += size;
    while (this.kept.length > MAX_EVENTS || (this.keptBytes > MAX_BYTES && this.kept.length > 1)) {
      this.keptBytes -= /** @type {[number, Read, number]} */ (this.kept.shift())[2];
    }
  }

  // What event `ev` carries of the learned path.
  /**
   * @param {number} t
   * @param {Read} ev
   * @returns {Item[]}
   */
  items(t, ev) {
    const { path, mode, match } = /** @type {Learned} */ (this.learned);
    /** @type {Item[]} */
    const out = [];
    for (const [p, value] of ev.values) {
      if (match ? !match(p) : p !== path) continue;
      out.push(mode === 'delta' ? { t, id: ev.id, delta: value } : { t, id: ev.id, text: value });
    }
    if (out.length) this.lastAnswerAt = t;
    // The answer ends with a done flag, or an event after it whose kind says so.
    const ends = ev.done || (this.lastAnswerAt >= 0 && ev.kinds.some((k) => END.test(k)));
    if (ends) out.push({ t, id: ev.id, done: true });
    return out;
  }

  /** Whether the page can still teach it anything: not while every event has been the same. */
  get teachable() {
    return !this.learned && (this.seen < 2 || !this.same);
  }

  /**
   * The text of an element the page changed: whether it taught the path.
   * @param {string} text
   */
  shown(text) {
    if (this.learned) return false;
    const page = normal(text);
    if (page.length < MIN_MATCH) return false;
    /** @type {{ path: string, mode: string, n: number } | null} */
    let best = null;
    for (const [path, p] of this.paths) {
      for (const mode of ['delta', 'snapshot']) {
        const ok = mode === 'delta' ? p.joinedEvents >= MIN_EVENTS && p.changes >= MIN_EVENTS : p.grew >= MIN_EVENTS - 1;
        if (!ok) continue;
        const n = shownPrefix(normal(mode === 'delta' ? p.joined : p.last), page);
        if (n >= MIN_MATCH && (!best || n > best.n)) best = { path, mode, n };
      }
    }
    if (!best) return false;
    this.learned = { path: best.path, mode: best.mode, by: 'learned', format: null, match: null };
    return true;
  }

  /** The kept events read again through the learned path (once, after `shown` taught it). */
  replay() {
    const kept = this.kept;
    this.kept = [];
    this.keptBytes = 0;
    if (!this.learned) return [];
    /** @type {Item[]} */
    const out = [];
    for (const [t, ev] of kept) for (const it of this.items(t, ev)) out.push(it);
    return out;
  }
}

/**
 * The apps whose protocols are known, recorded from the installed apps (tests/recordings/):
 * each claims a stream from its first events, and names the answer's path.
 * - Gradio 6 (`/gradio_api/queue/data`): SSE of `{ msg, event_id, output }`; `process_generating`
 *   sends the outputs whole, then diffs (applied by `read`), and the chatbot's last assistant
 *   message's text is the answer; `process_completed` ends it.
 */
const GRADIO_MSGS = new Set(['estimation', 'process_starts', 'process_generating', 'process_completed', 'heartbeat', 'send_data', 'close_stream', 'log', 'progress']);
const GRADIO_TEXT = /^\[msg=process_(?:generating|completed)\](\/output\/data\/\d+)\/(\d+)\[role=assistant\](\/content\/\d+)\[type=text\]\/text$/;
/** @type {Array<{ name: string, mode: string, claims: (ev: Read) => boolean, path: (ev: Read) => string | null, match: (path: string) => (p: string) => boolean }>} */
export const READERS = [
  {
    name: 'gradio',
    mode: 'snapshot',
    claims: (ev) => GRADIO_MSGS.has(/** @type {string} */ (ev.msg)),
    // The last assistant message's text in the outputs.
    path(ev) {
      /** @type {{ p: string, i: number } | null} */
      let best = null;
      for (const [p] of ev.values) {
        const m = GRADIO_TEXT.exec(p);
        if (m && (!best || Number(m[2]) > best.i)) best = { p, i: Number(m[2]) };
      }
      return best && best.p;
    },
    match(path) {
      const m = /** @type {RegExpExecArray} */ (GRADIO_TEXT.exec(path));
      return (p) => {
        const n = GRADIO_TEXT.exec(p);
        return !!n && n[1] === m[1] && n[2] === m[2] && n[3] === m[3];
      };
    },
  },
];

// The length of the longest start of `text` that `page` holds (both normalised); 0 when fewer
// than MIN_MATCH characters of it are there. A binary search over the start's length: each step
// one `includes`.
/**
 * @param {string} text
 * @param {string} page
 */
function shownPrefix(text, page) {
  if (text.length < MIN_MATCH || !page.includes(text.slice(0, MIN_MATCH))) return 0;
  let lo = MIN_MATCH;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (page.includes(text.slice(0, mid))) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The runs of valid UTF-8 text (at least 2 characters, no control characters but whitespace)
// in a binary frame.
/** @param {Uint8Array} bytes */
function utf8Runs(bytes) {
  const out = [];
  const dec = new TextDecoder('utf-8', { fatal: false });
  const text = dec.decode(bytes);
  for (const run of text.split(/[\uFFFD\u0000-\u0008\u000E-\u001F\u007F]+/)) if (run.length >= 2) out.push(run);
  return out;
}

/**
 * Server-sent events and lines for the learner, from a body's chunks: `push(text)` returns the
 * complete events (`{ name, data }`), as the WHATWG parser frames them; a body that is not SSE is
 * read as lines of JSON, or as text (each chunk an event).
 */
export class Framer {
  /** @param {unknown} contentType */
  constructor(contentType) {
    const ct = String(contentType || '').toLowerCase();
    /** @type {string | null} */
    this.kind = ct.includes('event-stream') ? 'sse' : ct.includes('json') ? 'lines' : null;
    this.buf = '';
    /** @type {string[]} */
    this.data = [];
    this.name = '';
  }

  /**
   * @param {string} text
   * @returns {Array<{ name: string, data: string }>}
   */
  push(text) {
    if (this.kind === null) {
      const head = (this.buf + text).trimStart();
      if (!head) return [];
      this.kind = /^(?:data:|event:|id:|retry:|:)/.test(head) ? 'sse' : head[0] === '{' || head[0] === '[' ? 'lines' : 'text';
    }
    if (this.kind === 'text') return [{ name: '', data: text }];
    this.buf += text;
    const out = [];
    let i;
    while ((i = this.buf.search(/\r\n|\r|\n/)) >= 0) {
      // A lone CR at the chunk's end may be the start of a CRLF: wait for the next chunk.
      if (this.buf[i] === '\r' && i === this.buf.length - 1) break;
      const line = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + (this.buf.startsWith('\r\n', i) ? 2 : 1));
      if (this.kind === 'lines') {
        if (line.trim()) out.push({ name: '', data: line });
        continue;
      }
      if (line === '') {
        if (this.data.length) out.push({ name: this.name, data: this.data.join('\n') });
        this.data = [];
        this.name = '';
        continue;
      }
      const c = line.indexOf(':');
      const field = c < 0 ? line : line.slice(0, c);
      let value = c < 0 ? '' : line.slice(c + 1);
      if (value[0] === ' ') value = value.slice(1);
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.name = value;
    }
    return out;
  }
}
