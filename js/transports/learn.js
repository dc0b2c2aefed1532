// Finding the answer in a wire format no reader knows (issues 47 and 58). Each event of a stream
// or a socket (SSE data, a line, a text frame, a Socket.IO event, a binary frame) is taken apart
// into its string values, each at a path (`msg=process_generating/output/data/1/1/content/0/text`):
// JSON at any depth and JSON inside strings; HTML as the text a browser shows of it; base64 and
// binary frames through their decoders (decode.js: protobuf, MessagePack, CBOR, else UTF-8 runs);
// diffs that patch a value the stream sent whole (`["append", [1, "content", 0, "text"], "tok"]`,
// as Gradio sends them) applied first, so a patched value is read at its own path. For each path
// two readings are kept: the values joined (deltas) and chains of values that each extend the
// one before (snapshots; several chains, since one path may carry other elements' values too).
// The page decides which path is the answer: once the text of a changed element holds what one of
// them carried, across at least three events, that path is followed, and every event kept before
// is read again with its own arrival time. An answer whose deltas begin after a whole message
// that carried its first words (Chainlit's `stream_start`) takes those words from it. The answer
// ends at an end marker at any depth of its events (a kind that says so, or a flag such as
// `done: true`), or at a whole message after its deltas that equals its text; a quiet end is the
// shell's (answers.js). After an end the learner learns anew, following the same path at once
// if the next answer comes on it. Heartbeats, status messages and echoes of the question never
// grow on the page, so they are never learned. Pure: no DOM, no timers; tested in Node
// (tests/native/learn.test.mjs).

import { isHtml, visibleText, base64Bytes, binary } from './decode.js';
import { normal } from './normal.js';

export { normal };

// Keys whose string value names what an object is: they become part of the path, so that the
// answer's deltas and, say, reasoning deltas of the same shape stay apart.
const KINDS = ['type', 'msg', 'event', 'object', 'role', 'kind'];
// Keys whose string value names an answer, on a socket that carries many.
const IDS = ['message_id', 'messageId', 'event_id', 'eventId', 'request_id', 'response_id', 'id'];
// A kind that says the answer is over (`process_completed`, `text-end`, `message_stop`).
const END = /(?:^|[^a-z])(?:complete[d]?|done|finish(?:ed)?|end(?:ed)?|stop(?:ped)?|close[d]?)(?:[^a-z]|$)/i;
// Flags that end the answer when true, at any depth.
const FINAL = new Set(['done', 'is_final', 'isFinal', 'final', 'finished', 'is_last', 'isLast', 'complete', 'completed']);

/** The learner's caps (docs/formats.md). */
export const CAPS = {
  /** Events kept to read again once the path is learned. */
  events: 4096,
  /** Characters of their values kept. */
  bytes: 4 * 1024 * 1024,
  /** How long an event is kept (ms before the newest). */
  keptMs: 60000,
  /** Nesting followed in a JSON value. */
  depth: 12,
  /** The longest event read (characters or bytes); a longer one is counted, not read. */
  event: 1024 * 1024,
  /** Paths followed per stream or socket. */
  paths: 512,
};
// Matching: the shortest run of an answer's text, in letters and digits, that the page must show.
const MIN_MATCH = 8;
const MIN_EVENTS = 3;
// Snapshot chains kept per path.
const CHAINS = 4;

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
 * What an event names besides its values: the answer's id, the kinds anywhere in it, whether a
 * flag says it is done, and Gradio's `msg`.
 * @typedef {{ id: string | null, kinds: string[], done: boolean, msg: string | null }} Meta
 * @typedef {{ values: Array<[string, string]> } & Meta} Read
 * @typedef {{ t: number, id: string | null, delta?: string, text?: string, done?: boolean, end?: string }} Item
 */

/**
 * The string values of `value` as `[path, string]`, into `out`; `meta` gets the answer's id if
 * one is named, the kinds named anywhere (for end markers) and end flags; `state` holds the last
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
  if (depth > CAPS.depth || value === null || value === undefined) return;
  if (typeof value === 'string') return str(value, path, out, meta, state, depth);
  if (value instanceof Uint8Array) return bytes(value, path, out, meta, state, depth);
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
      meta.kinds.push(v);
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
  if (depth === 0 && typeof value.msg === 'string') meta.msg = value.msg;
  for (const k of Object.keys(value)) {
    // A kind or an id named as a string is in the path or the meta; anything else under such a
    // key (an `event` object) is read as any value.
    if ((KINDS.includes(k) || IDS.includes(k)) && (typeof value[k] === 'string' || typeof value[k] === 'number')) continue;
    if (value[k] === true && FINAL.has(k)) meta.done = true;
    leaves(value[k], `${here}/${k}`, out, meta, state, depth + 1);
  }
}

/**
 * A string value: JSON inside it is read as JSON (a frame inside an envelope), base64 through its
 * decoders, HTML as the text a browser shows; else it is a value.
 * @param {string} value
 * @param {string} path
 * @param {Array<[string, string]>} out
 * @param {Meta} meta
 * @param {Map<string, unknown>} state
 * @param {number} depth
 */
function str(value, path, out, meta, state, depth) {
  if (value.length > 1) {
    const inner = parse(value);
    if (inner !== undefined && typeof inner === 'object') return leaves(inner, path, out, meta, state, depth + 1);
    // Base64 is taken only where it decodes to a message or to text (an id in hex is not).
    const b = /^[0-9a-f]+$/i.test(value) ? null : base64Bytes(value);
    if (b) {
      const d = binary(b);
      if ('value' in d) return leaves(d.value, `${path}#${d.via}`, out, meta, state, depth + 1);
      if (d.runs.length === 1 && d.runs[0].length * 10 >= b.length * 9) return str(d.runs[0], `${path}#base64`, out, meta, state, depth + 1);
    }
  }
  out.push([path, isHtml(value) ? visibleText(value) : value]);
}

/**
 * A binary value (a frame, or bytes inside one).
 * @param {Uint8Array} data
 * @param {string} path
 * @param {Array<[string, string]>} out
 * @param {Meta} meta
 * @param {Map<string, unknown>} state
 * @param {number} depth
 */
function bytes(data, path, out, meta, state, depth) {
  const d = binary(data);
  if ('value' in d) return leaves(d.value, `${path}#${d.via}`, out, meta, state, depth + 1);
  let i = 0;
  for (const run of d.runs) out.push([`${path}$bytes/${i++}`, run]);
}

// A path's readings: its values joined (deltas, which must change from event to event), and
// chains of values each extending the one before (snapshots), compared in letters and digits.
class Path {
  constructor() {
    this.joined = '';
    // The first value's letters and digits: a page that shows only them (the question, echoed)
    // shows no deltas.
    this.firstN = -1;
    this.joinedEvents = 0;
    this.last = '';
    this.changes = 0;
    /** @type {Array<{ n: string, grew: number, at: number }>} */
    this.chains = [];
    this.takes = 0;
  }

  /** @param {string} value */
  take(value) {
    if (value) {
      if (this.joined.length < CAPS.event) this.joined += value;
      if (this.joinedEvents++ === 0) this.firstN = normal(value).length;
    }
    // A value sent again unchanged (the question, in every snapshot of the conversation) is not
    // a delta.
    if (value && value !== this.last) this.changes++;
    this.last = value;
    const n = normal(value);
    if (!n) return;
    const at = ++this.takes;
    /** @type {{ n: string, grew: number, at: number } | null} */
    let chain = null;
    for (const c of this.chains) if (n.startsWith(c.n) && (!chain || c.n.length > chain.n.length)) chain = c;
    if (chain) {
      if (n.length > chain.n.length) chain.grew++;
      chain.n = n;
      chain.at = at;
      return;
    }
    // A new chain takes the place of the one that grew least, the longest unchanged of those.
    if (this.chains.length >= CHAINS) {
      let worst = 0;
      for (let i = 1; i < this.chains.length; i++) {
        const c = this.chains[i];
        const w = this.chains[worst];
        if (c.grew < w.grew || (c.grew === w.grew && c.at < w.at)) worst = i;
      }
      this.chains.splice(worst, 1);
    }
    this.chains.push({ n, grew: 0, at });
  }
}

/**
 * Where an answer was found in a protocol: its path, read as deltas or snapshots, by a reader
 * (`format`, and its `match`) or learned from the page.
 * @typedef {{ path: string, mode: string, by: string, format: string | null, match: ((p: string) => boolean) | null }} Learned
 */

/**
 * One stream's or socket's learner. `event(t, data, name)` takes an event (a string, bytes, or
 * a value already parsed, e.g. a Socket.IO event's arguments) and returns what it carries of the
 * answer once the path is learned: `[{ t, id, delta | text, done, end }]`, else `[]` (the event is
 * kept). `shown(text)` hands it the text of an element the page changed: true when that taught
 * it the path (then `replay()` gives the kept events' items).
 */
export class Learner {
  #keptBytes;
  /** @type {string | null} */
  #firstPath;
  /** @type {string | null} */
  #chain;

  /** `readers`: whether the apps' readers (READERS) may claim the stream from its first events. */
  constructor({ readers = false } = {}) {
    /** @readonly @type {Map<string, Path>} */
    this.paths = new Map();
    /** @type {Array<[number, Read, number]>} */
    this.kept = [];
    this.#keptBytes = 0;
    /** @readonly @type {Map<string, unknown>} */
    this.state = new Map();
    /** @type {Learned | null} */
    this.learned = null;
    // The path the last answer was read from: the next answer on it is followed at once.
    /** @type {Learned | null} */
    this.hint = null;
    // Where a whole message carried the first words before the deltas (the path), if anywhere.
    this.#firstPath = null;
    // The snapshots' text the page was seen to show when the path was learned (letters and
    // digits): the answer's first snapshot is one of its chain.
    this.#chain = null;
    this.seen = 0;
    this.skipped = 0;
    /** @readonly */
    this.readers = readers;
    /** @type {(typeof READERS)[number] | false | null} */
    this.reader = null;
    /** @type {string | null} */
    this.first = null;
    this.same = true;
    // The user's question, in letters and digits, where the shell knows it (asks.js): a value
    // equal to it (a chat's title) is never the answer's first words.
    this.question = '';
    // The answer being read: its id, its text so far and that text in letters and digits.
    /** @type {{ id: string | null, text: string, n: string } | null} */
    this.answer = null;
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
      if (v === undefined) str(data, `${prefix}$text`, out, meta, this.state, 0);
      else leaves(v, prefix, out, meta, this.state, 0);
    } else if (data instanceof Uint8Array) bytes(data, prefix, out, meta, this.state, 0);
    else if (data !== undefined) leaves(data, prefix, out, meta, this.state, 0);
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
    const size = typeof data === 'string' ? data.length : data instanceof Uint8Array ? data.byteLength : 0;
    // An event too large to read is counted, not read (the app has it; tokenpaint lets it be).
    if (size > CAPS.event) {
      this.skipped++;
      return [];
    }
    // A stream whose every event is the same (a heartbeat's `ALIVE`) has nothing to teach.
    const sig = typeof data === 'string' ? data : data instanceof Uint8Array ? data.length : JSON.stringify(data);
    if (this.seen === 1) this.first = `${name}\u0000${sig}`;
    else if (this.same && this.first !== `${name}\u0000${sig}`) this.same = false;
    const ev = this.read(data, name);
    if (this.learned) return this.items(t, ev);
    for (const [path, value] of ev.values) {
      let p = this.paths.get(path);
      if (!p) {
        if (this.paths.size >= CAPS.paths) continue;
        this.paths.set(path, (p = new Path()));
      }
      p.take(value);
    }
    this.keep(t, ev);
    // The next answer on the path the last one took: followed at once.
    const hint = this.hint;
    if (hint && ev.values.some(([p, v]) => v && (hint.match ? hint.match(p) : p === hint.path))) {
      this.learned = hint;
      return this.replay();
    }
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

  // Keeps an event to read again once the path is learned: the newest CAPS.events events, at
  // most CAPS.bytes of their values, none older than CAPS.keptMs before the newest.
  /**
   * @param {number} t
   * @param {Read} ev
   */
  keep(t, ev) {
    const size = ev.values.reduce((n, [, v]) => n + v.length, 0);
    this.kept.push([t, ev, size]);
    this.#keptBytes += size;
    while (this.kept.length > 1 && (this.kept.length > CAPS.events || this.#keptBytes > CAPS.bytes || this.kept[0][0] < t - CAPS.keptMs)) {
      this.#keptBytes -= /** @type {[number, Read, number]} */ (this.kept.shift())[2];
    }
  }

  // What event `ev` carries of the learned path, and whether it ends the answer.
  /**
   * @param {number} t
   * @param {Read} ev
   * @returns {Item[]}
   */
  items(t, ev) {
    const { path, mode, match } = /** @type {Learned} */ (this.learned);
    const on = (/** @type {string} */ p) => (match ? match(p) : p === path);
    /** @type {Item[]} */
    const out = [];
    let a = this.answer;
    // An answer with another id than the open one: the open one is over, as the next begins.
    for (const [p, value] of ev.values) {
      const first = !on(p) && p === this.#firstPath && (!a || !a.text);
      if (!on(p) && !first) continue;
      if (!value) continue;
      if (a && a.id !== null && ev.id !== null && a.id !== ev.id) a = null;
      if (!a) a = this.answer = { id: ev.id, text: '', n: '' };
      if (mode === 'delta') {
        a.text += value;
        out.push({ t, id: a.id, delta: value });
      } else {
        // Another element's value on the same path (the question's bubble) is not the answer's:
        // the first value must start the text the page was seen to show (`chain`), each later
        // one must start as the answer so far does.
        const n = normal(value);
        if (!n && !a.n) continue;
        if (!a.n && this.#chain !== null && !(this.#chain.startsWith(n) || n.startsWith(this.#chain))) continue;
        if (a.n && !n.startsWith(a.n.slice(0, Math.min(MIN_MATCH, n.length)))) continue;
        a.text = value;
        out.push({ t, id: a.id, text: value });
      }
      a.n = normal(a.text);
    }
    if (!a || !a.text) return out;
    const same = a.id === null || ev.id === null || a.id === ev.id;
    // The answer ends with a flag or a kind that says so, at any depth of an event of its own.
    /** @type {string | null} */
    let end = same && (ev.done || ev.kinds.some((k) => END.test(k))) ? 'marker' : null;
    // Or with a whole message after its deltas that equals its text: an event of its own, not one
    // that carried the answer (which may hold it twice, as Mesop's components do).
    if (!end && !out.length && a.n.length >= MIN_MATCH) {
      for (const [p, value] of ev.values) {
        if (!on(p) && value.length >= a.n.length && normal(value) === a.n) {
          end = 'whole';
          break;
        }
      }
    }
    if (end) {
      out.push({ t, id: a.id, done: true, end });
      this.ended();
    }
    return out;
  }

  // The answer is over: the next is learned anew (the page may show it elsewhere), its path
  // followed at once if it comes on the same one.
  ended() {
    this.answer = null;
    this.#chain = null;
    if (this.learned && this.learned.by === 'learned') {
      this.hint = this.learned;
      this.learned = null;
      this.paths.clear();
      this.kept = [];
      this.#keptBytes = 0;
      this.same = false;
    }
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
    /** @type {{ path: string, mode: string, n: number, read: string } | null} */
    let best = null;
    for (const [path, p] of this.paths) {
      if (p.joinedEvents >= MIN_EVENTS && p.changes >= MIN_EVENTS) {
        const read = normal(p.joined);
        const n = shownPrefix(read, page);
        // Deltas are shown when the page shows more than the first of them.
        if (n >= MIN_MATCH && n > p.firstN && (!best || n > best.n)) best = { path, mode: 'delta', n, read };
      }
      for (const c of p.chains) {
        if (c.grew < MIN_EVENTS - 1) continue;
        const n = shownPrefix(c.n, page);
        // A tie with the same path's deltas goes to the snapshots: values that each extend the
        // one before are snapshots (an answer that repeats its words joins as deltas too).
        if (n >= MIN_MATCH && (!best || n > best.n || (n === best.n && best.path === path))) best = { path, mode: 'snapshot', n, read: c.n };
      }
    }
    if (!best) return false;
    this.learned = { path: best.path, mode: best.mode, by: 'learned', format: null, match: null };
    this.#chain = best.mode === 'snapshot' ? best.read : null;
    this.#firstPath = best.mode === 'delta' ? this.firstWords(best.path, page.slice(0, page.indexOf(best.read.slice(0, best.n)))) : this.firstSnapshot(best.path, best.read);
    return true;
  }

  // Where a message before the path's first snapshot carried the answer's first snapshot (Mesop
  // sends the new message's whole tree first, then the markdown's updates): a value of a few
  // events before, elsewhere, that the chain's text begins with.
  /**
   * @param {string} path
   * @param {string} chain
   * @returns {string | null}
   */
  firstSnapshot(path, chain) {
    const at = this.kept.findIndex(([, ev]) => ev.values.some(([p, v]) => p === path && normal(v)));
    if (at < 0) return null;
    // The path's own first snapshot: an earlier one is a start of it.
    const own = this.kept[at][1].values.find(([p, v]) => p === path && normal(v));
    const first = normal(/** @type {[string, string]} */ (own)[1]);
    // The nearest such event: its first words may be few (two letters or more).
    for (let i = at - 1; i >= 0 && i >= at - 8; i--) {
      for (const [p, v] of this.kept[i][1].values) {
        const n = normal(v);
        if (p !== path && n.length >= 2 && n.length < first.length && n !== this.question && first.startsWith(n) && chain.startsWith(n)) return p;
      }
    }
    return null;
  }

  // Where a whole message before the first delta carried the answer's first words: the page
  // shows them just before the deltas' text (`before`). The latest such event of the answer's
  // own id (or the one just before the deltas, where events carry none) names the path.
  /**
   * @param {string} path
   * @param {string} before
   * @returns {string | null}
   */
  firstWords(path, before) {
    const at = this.kept.findIndex(([, ev]) => ev.values.some(([p, v]) => p === path && v));
    if (at <= 0 || !before) return null;
    const id = this.kept[at][1].id;
    for (let i = at - 1; i >= 0 && i >= at - 32; i--) {
      const ev = this.kept[i][1];
      if (id !== null ? ev.id !== id : i !== at - 1) continue;
      /** @type {[string, number] | null} */
      let found = null;
      for (const [p, v] of ev.values) {
        const n = normal(v);
        if (n && p !== path && n !== this.question && before.endsWith(n) && (!found || n.length > found[1])) found = [p, n.length];
      }
      if (found) return found[0];
    }
    return null;
  }

  /** The kept events read again through the learned path (once, after `shown` taught it). */
  replay() {
    const kept = this.kept;
    this.kept = [];
    this.#keptBytes = 0;
    /** @type {Item[]} */
    const out = [];
    for (const [t, ev] of kept) {
      if (!this.learned) break;
      for (const it of this.items(t, ev)) out.push(it);
    }
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
