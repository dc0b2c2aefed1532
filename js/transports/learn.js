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

import { isHtml, visibleText, base64Bytes, binary, unescapedHtml, fragments } from './decode.js';
import { normal } from './normal.js';

export { normal };

// Keys whose string value names what an object is: they become part of the path, so that the
// answer's deltas and, say, reasoning deltas of the same shape stay apart.
const KINDS = ['type', 'msg', 'event', 'object', 'role', 'kind'];
// Keys whose string value names where an operation writes (a scope, a target element): part of
// the path too, so that operations on different targets are different paths.
const TARGETS = ['target', 'scope'];
// Keys whose string value names an answer, on a socket that carries many.
const IDS = ['message_id', 'messageId', 'event_id', 'eventId', 'request_id', 'response_id', 'id'];
// Keys that name each element of a list of operations (`[{ key: 'rows -1', value: … }]`): an
// element is at `[key=rows -1]`, not at its index, which changes from frame to frame.
const OP_KEYS = ['key', 'k', 'target', 'path', 'name', 'id'];
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
  /** Nesting followed in a JSON value (a Bokeh document's markdown pane is 18 levels down). */
  depth: 32,
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
 * How element `i` of a list is named in a path: by its own key where it has one (the first of
 * OP_KEYS it has with a short string or number, that no other element of the list has the same,
 * save an operation's `key`, which may repeat: `rows +` twice), as `[key=rows -1]`, so that an
 * operation is found whatever else the frame holds before it; else by its index.
 * @param {any[]} list
 * @param {number} i
 */
function opName(list, i) {
  const x = list[i];
  if (list.length <= 64 && x && typeof x === 'object' && !Array.isArray(x)) {
    for (const k of OP_KEYS) {
      const v = x[k];
      if (!((typeof v === 'string' && v.length < 80) || typeof v === 'number')) continue;
      if (k === 'key' || k === 'k' || !list.some((y, j) => j !== i && y && y[k] === v)) return `[${k}=${v}]`;
    }
  }
  return String(i);
}

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
 * @param {string} [at] the path by indices, where diffs address what they patch (`path` names
 *   the elements of a list of operations by their keys)
 * @returns {void}
 */
function leaves(value, path, out, meta, state, depth, at = path) {
  if (depth > CAPS.depth || value === null || value === undefined) return;
  if (typeof value === 'string') return str(value, path, out, meta, state, depth, at);
  if (value instanceof Uint8Array) return bytes(value, path, out, meta, state, depth, at);
  if (typeof value !== 'object') return;
  if (isDiffs(value)) {
    const base = state.get(at);
    if (base === undefined) return;
    const next = patch(base, value);
    state.set(at, next);
    return leaves(next, path, out, meta, state, depth + 1, at);
  }
  if (at && depth > 0) state.set(at, value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) leaves(value[i], `${path}/${opName(value, i)}`, out, meta, state, depth + 1, `${at}/${i}`);
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
  for (const k of TARGETS) {
    const v = value[k];
    if (typeof v === 'string' && v.length < 80 && !path.endsWith(`/[${k}=${v}]`)) here += `[${k}=${v}]`;
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
    if ((KINDS.includes(k) || IDS.includes(k) || TARGETS.includes(k)) && (typeof value[k] === 'string' || typeof value[k] === 'number')) continue;
    if (value[k] === true && FINAL.has(k)) meta.done = true;
    leaves(value[k], `${here}/${k}`, out, meta, state, depth + 1, `${at}/${k}`);
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
 * @param {string} [at]
 */
function str(value, path, out, meta, state, depth, at = path) {
  if (value.length > 1) {
    const inner = parse(value);
    if (inner !== undefined && typeof inner === 'object') return leaves(inner, path, out, meta, state, depth + 1, at);
    // Base64 is taken only where it decodes to a message or to text (an id in hex is not).
    const b = /^[0-9a-f]+$/i.test(value) ? null : base64Bytes(value);
    if (b) {
      const d = binary(b);
      if ('value' in d) return leaves(d.value, `${path}#${d.via}`, out, meta, state, depth + 1, `${at}#${d.via}`);
      if (d.runs.length === 1 && d.runs[0].length * 10 >= b.length * 9) return str(d.runs[0], `${path}#base64`, out, meta, state, depth + 1);
    }
  }
  const html = isHtml(value) ? value : unescapedHtml(value);
  if (html === null) return void out.push([path, value]);
  // Fragments that name their target (an id, a swap attribute): each one's text at a path of its
  // target and swap, so that the answer's element is followed whatever else the frame swaps.
  const parts = fragments(html, depth === 0);
  if (!parts) return void out.push([path, visibleText(html)]);
  for (const f of parts) out.push([f.target ? `${path}$html[#${f.target}][${f.swap}]` : `${path}$html`, f.text]);
}

/**
 * A binary value (a frame, or bytes inside one).
 * @param {Uint8Array} data
 * @param {string} path
 * @param {Array<[string, string]>} out
 * @param {Meta} meta
 * @param {Map<string, unknown>} state
 * @param {number} depth
 * @param {string} [at]
 */
function bytes(data, path, out, meta, state, depth, at = path) {
  const d = binary(data);
  if ('value' in d) return leaves(d.value, `${path}#${d.via}`, out, meta, state, depth + 1, `${at}#${d.via}`);
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
 * @typedef {'delta' | 'snapshot'} Mode how a reading's values add up
 * @typedef {{ path: string, mode: Mode, by: string, format: string | null, match: ((p: string) => boolean) | null }} Learned
 */

// Readings kept alive beside the one followed, while the page can still tell them apart.
const READINGS = 6;

/**
 * One reading of a protocol (a hypothesis the page keeps testing): where the answer's text is
 * (its path, down to one operation of a frame or one target of an HTML fragment), how it adds up
 * (`delta`: each value appended; `snapshot`: each value the whole answer so far), and where its
 * first words came when another message carried them (`first`). It reads each event into the
 * answer's items, and keeps what the page showed of it: the longest run of its text, in letters
 * and digits, that one changed element held (`best`).
 */
class Reading {
  /**
   * @param {{ path: string, mode: Mode, by?: string, format?: string | null, match?: ((p: string) => boolean) | null, first?: string | null, firstEv?: Read | null, firstId?: string | null, chain?: string | null }} how
   */
  constructor({ path, mode, by = 'learned', format = null, match = null, first = null, firstEv = null, firstId = null, chain = null }) {
    /** @readonly */
    this.path = path;
    /** @readonly */
    this.mode = mode;
    /** @readonly */
    this.by = by;
    /** @readonly */
    this.format = format;
    /** @readonly */
    this.match = match;
    // Where a message before the answer's values carried its first words (a path, and that
    // event: the same path may carry the question's bubble before it), if anywhere.
    /** @readonly */
    this.first = first;
    /** @readonly */
    this.firstEv = firstEv;
    // The id the answer's values carry, where the message of its first words names another
    // (Bokeh's names the document's model): the first words are the same answer's.
    /** @readonly */
    this.firstId = firstId;
    // The snapshots' text the page was seen to show when it was learned (letters and digits):
    // the answer's first snapshot is one of its chain.
    this.chain = chain;
    // The answer being read: its id, its text so far and that text in letters and digits.
    /** @type {{ id: string | null, text: string, n: string } | null} */
    this.answer = null;
    // What it read while another reading was followed (to be handed over if it wins); null once
    // it read more than CAPS.events of them (it can no longer be handed over whole).
    /** @type {Item[] | null} */
    this.items = [];
    // The most of its text the page showed in one run, and in which element (the learner's
    // caller's, opaque here).
    this.best = 0;
    /** @type {unknown} */
    this.where = null;
    // Why the page ruled it out ('' while it stands).
    this.out = '';
  }

  /** @param {string} p */
  on(p) {
    return this.match ? this.match(p) : p === this.path;
  }

  /**
   * What event `ev` carries of the answer, and whether it ends it (a done item).
   * @param {number} t
   * @param {Read} ev
   * @param {string} question
   * @returns {Item[]}
   */
  take(t, ev, question) {
    /** @type {Item[]} */
    const out = [];
    let a = this.answer;
    for (const [p, value] of ev.values) {
      const on = this.on(p);
      const first = !on && ev === this.firstEv && p === this.first && (!a || !a.text);
      if (!on && !first) continue;
      if (!value) continue;
      const id = first && this.firstId !== null ? this.firstId : ev.id;
      // An answer with another id than the open one: the open one is over, as the next begins.
      if (a && a.id !== null && id !== null && a.id !== id) a = null;
      if (!a) a = this.answer = { id, text: '', n: '' };
      if (this.mode === 'delta') {
        a.text += value;
        out.push({ t, id: a.id, delta: value });
      } else {
        // Another element's value on the same path (the question's bubble) is not the answer's:
        // the first value must start the text the page was seen to show (`chain`), each later
        // one must start as the answer so far does.
        const n = normal(value);
        if (!n && !a.n) continue;
        if (!a.n && this.chain !== null && !(this.chain.startsWith(n) || n.startsWith(this.chain))) continue;
        if (!a.n && n === question) continue;
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
        if (!this.on(p) && value.length >= a.n.length && normal(value) === a.n) {
          end = 'whole';
          break;
        }
      }
    }
    if (end) out.push({ t, id: a.id, done: true, end });
    return out;
  }

  /** The text it read so far, in letters and digits. */
  get n() {
    return this.answer ? this.answer.n : '';
  }

  /** How it is named in a report: `path` (with `first` where the first words came). */
  describe() {
    return { path: this.path, mode: this.mode, first: this.first };
  }
}

/**
 * One stream's or socket's learner. `event(t, data, name)` takes an event (a string, bytes, or
 * a value already parsed, e.g. a Socket.IO event's arguments) and returns what it carries of the
 * answer once the path is learned: `[{ t, id, delta | text, done, end }]`, else `[]` (the event is
 * kept). `shown(text)` hands it the text of an element the page changed: true when that taught
 * it the path (then `replay()` gives the kept events' items), or, while several readings of the
 * answer still stand (`verifying`), when it made the learner follow another of them (then
 * `restart` is true, and `replay()` gives that reading's items from the answer's start: what was
 * handed over before is void).
 *
 * A reading is a hypothesis. Every reading whose text the page showed when the path was learned
 * is kept alive (up to READINGS) and reads every event after. At each change of the page, the
 * runs of their texts in the changed element are compared: a reading is ruled out when the page
 * shows, where its run stops, more of another reading's run (the page went on with text it says
 * does not come next, or never came). The reading followed is replaced when it is ruled out, and
 * at the answer's end (`settle()`) the reading the page showed the most of wins.
 */
export class Learner {
  #keptBytes;
  // A reading that won over the one followed: its items, to be handed over (`replay()`).
  /** @type {Item[] | null} */
  #switched;
  // The reading of the last answer, once it is over.
  /** @type {Reading | null} */
  #last = null;
  // The readings tried for the answer (`mode path`), and whether its first events were let go.
  /** @type {Set<string>} */
  #triedKeys = new Set();
  #lost = false;
  // The readings that still stand beside the one followed.
  /** @type {Reading[]} */
  #others = [];
  // The readings tried for the answer, and those the page ruled out: the report says so.
  #triedN = 0;
  #droppedN = 0;
  // The first event's signature, and whether every event since has been the same (a heartbeat).
  /** @type {string | null} */
  #firstSig = null;
  #same = true;

  /** `readers`: whether the apps' readers (READERS) may claim the stream from its first events. */
  constructor({ readers = false } = {}) {
    /** @readonly @type {Map<string, Path>} */
    this.paths = new Map();
    /** @type {Array<[number, Read, number]>} */
    this.kept = [];
    this.#keptBytes = 0;
    this.#switched = null;
    /** @readonly @type {Map<string, unknown>} */
    this.state = new Map();
    // The reading followed (the others that still stand are #others).
    /** @type {Reading | null} */
    this.learned = null;
    // Whether the items `replay()` gives next replace what was handed over before.
    this.restart = false;
    // The path the last answer was read from: the next answer on it is followed at once.
    /** @type {Learned | null} */
    this.hint = null;
    this.seen = 0;
    this.skipped = 0;
    /** @readonly */
    this.readers = readers;
    /** @type {(typeof READERS)[number] | false | null} */
    this.reader = null;
    // The user's question, in letters and digits, where the shell knows it (asks.js): a value
    // equal to it (a chat's title) is never the answer's first words.
    this.question = '';
  }

  /**
   * How the answer is read, or the last one was: the reading's path, how its values add up,
   * where its first words came (if another message carried them), and how many readings were
   * tried for it and how many of them the page ruled out. Null before any was learned.
   */
  reading() {
    const r = this.learned || this.#last;
    if (!r) return null;
    /** @type {{ path: string, mode: Mode, first?: string, tried: number, dropped: number }} */
    const out = { path: r.path, mode: r.mode, tried: this.#triedN, dropped: this.#droppedN };
    if (r.first) out.first = r.first;
    return out;
  }

  /** How many readings were tried for the answer. */
  get tried() {
    return this.#triedN;
  }

  /** How many of them the page ruled out. */
  get dropped() {
    return this.#droppedN;
  }

  /** The answer being read (the followed reading's), if any. */
  get answer() {
    return this.learned ? this.learned.answer : null;
  }

  /**
   * Whether the page's changes still decide how the answer is read: while a learned reading is
   * followed and the answer's events are all kept (another reading can be read from its start).
   */
  get verifying() {
    return !!this.learned && this.learned.by === 'learned' && (!this.#lost || this.#others.length > 0);
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
    if (this.seen === 1) this.#firstSig = `${name}\u0000${sig}`;
    else if (this.#same && this.#firstSig !== `${name}\u0000${sig}`) this.#same = false;
    const ev = this.read(data, name);
    // While it follows a learned reading it goes on learning: a reading the page shows later may
    // be read from the answer's start.
    if (this.learned && this.learned.by !== 'learned') return this.items(t, ev);
    for (const [path, value] of ev.values) {
      let p = this.paths.get(path);
      if (!p) {
        if (this.paths.size >= CAPS.paths) continue;
        this.paths.set(path, (p = new Path()));
      }
      p.take(value);
    }
    this.keep(t, ev);
    if (this.learned) return this.items(t, ev);
    // The next answer on the path the last one took: followed at once.
    const hint = this.hint;
    if (hint && ev.values.some(([p, v]) => v && (hint.match ? hint.match(p) : p === hint.path))) {
      this.follow([new Reading(hint)]);
      return this.replay();
    }
    // An app whose protocol a reader knows: its path is known from the wire alone.
    if (this.readers && this.seen <= 2 && this.reader === null) this.reader = READERS.find((r) => r.claims(ev)) || false;
    if (this.reader) {
      const path = this.reader.path(ev);
      if (path) {
        this.follow([new Reading({ path, mode: this.reader.mode, by: 'reader', format: this.reader.name, match: this.reader.match(path) })]);
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
      // The answer's start is no longer kept: no other reading can be read from it.
      if (this.learned) this.#lost = true;
    }
  }

  // Follows the first of `readings`, the others kept alive beside it.
  /** @param {Reading[]} readings */
  follow(readings) {
    this.learned = readings[0];
    this.#others = readings.slice(1);
    this.#triedN = readings.length;
    this.#droppedN = 0;
    this.#lost = false;
    this.#triedKeys = new Set(readings.map((r) => `${r.mode} ${r.path}`));
  }

  // What event `ev` carries of the answer (the followed reading's items), every other reading
  // that stands reading it too; at the answer's end, the reading the page showed the most of
  // is chosen again (`settle`).
  /**
   * @param {number} t
   * @param {Read} ev
   * @returns {Item[]}
   */
  items(t, ev) {
    const cur = /** @type {Reading} */ (this.learned);
    const out = cur.take(t, ev, this.question);
    for (const o of this.#others) {
      if (!o.items) continue;
      for (const it of o.take(t, ev, this.question)) if (!it.done) o.items.push(it);
      if (o.items.length > CAPS.events) o.items = null;
    }
    const done = out.find((it) => it.done);
    if (!done) return out;
    // The answer is over: the reading that explains the page best is the answer's.
    const won = this.settle();
    this.ended();
    if (!won) return out;
    const items = /** @type {Item[]} */ (this.replay());
    const a = won.answer;
    items.push({ t, id: a ? a.id : null, done: true, end: done.end });
    return items;
  }

  /**
   * The answer is over (an end the learner saw, or one the shell decided: quiet, closed): of
   * the readings that stand, the one whose text the page showed the most of wins. Returns it
   * when it is not the one followed (then it is followed, `restart` is set and `replay()` gives
   * its items), else null. Either way the others are let go.
   * @returns {Reading | null}
   */
  settle() {
    const cur = this.learned;
    if (!cur || !this.#others.length) return null;
    let won = cur;
    for (const o of this.#others) if (o.items && o.best > won.best) won = o;
    this.#others = [];
    if (won === cur) return null;
    this.learned = won;
    this.#switched = /** @type {Item[]} */ (won.items);
    won.items = [];
    this.restart = true;
    return won;
  }

  // The answer is over: the next is learned anew (the page may show it elsewhere), its path
  // followed at once if it comes on the same one.
  ended() {
    const cur = this.learned;
    if (cur) cur.answer = null;
    this.#last = cur;
    this.#others = [];
    this.#triedKeys = new Set();
    if (cur && cur.by === 'learned') {
      this.hint = { path: cur.path, mode: cur.mode, by: cur.by, format: null, match: null };
      this.learned = null;
      this.paths.clear();
      this.kept = [];
      this.#keptBytes = 0;
      this.#same = false;
    }
  }

  /** Whether the page can still teach it anything: not while every event has been the same. */
  get teachable() {
    return (!this.learned && (this.seen < 2 || !this.#same)) || this.verifying;
  }

  /**
   * The text of an element the page changed: whether it taught the path, or (while several
   * readings stand) made the learner follow another one. `where` names the element (opaque).
   * @param {string} text
   * @param {unknown} [where]
   */
  shown(text, where) {
    if (this.learned) return this.verify(text, where);
    const page = normal(text);
    if (page.length < MIN_MATCH) return false;
    const readings = this.candidates(page, where, () => false);
    if (!readings.length) return false;
    this.follow(readings);
    return true;
  }

  /**
   * The readings the paths offer for a page's text (letters and digits): each path's deltas and
   * snapshot chains that it shows MIN_MATCH letters of or more, the most shown first, one for
   * each text shown, at most READINGS; `skip(mode, path)` leaves out those tried already.
   * @param {string} page
   * @param {unknown} where
   * @param {(mode: Mode, path: string) => boolean} skip
   * @returns {Reading[]}
   */
  candidates(page, where, skip) {
    /** @type {Array<{ path: string, mode: Mode, n: number, read: string, short?: boolean }>} */
    const found = [];
    for (const [path, p] of this.paths) {
      // Deltas of MIN_EVENTS events or more; or one fewer after a message that carried the
      // answer's first words (an answer of four tokens, two of them in the message that created
      // its element), found below.
      if (p.joinedEvents >= MIN_EVENTS - 1 && p.changes >= MIN_EVENTS - 1 && !skip('delta', path)) {
        const read = normal(p.joined);
        const n = shownPrefix(read, page);
        // Deltas are shown when the page shows more than the first of them.
        if (n >= MIN_MATCH && n > p.firstN) found.push({ path, mode: 'delta', n, read, short: p.joinedEvents < MIN_EVENTS || p.changes < MIN_EVENTS });
      }
      if (skip('snapshot', path)) continue;
      for (const c of p.chains) {
        if (c.grew < MIN_EVENTS - 1) continue;
        const n = shownPrefix(c.n, page);
        if (n >= MIN_MATCH) found.push({ path, mode: 'snapshot', n, read: c.n });
      }
    }
    // The reading that shows the most first; a tie with the same path's deltas goes to the
    // snapshots (values that each extend the one before are snapshots: an answer that repeats
    // its words joins as deltas too). One reading for each text shown.
    found.sort((x, y) => y.n - x.n || (x.path === y.path ? (x.mode === 'snapshot' ? -1 : 1) : 0));
    /** @type {Reading[]} */
    const readings = [];
    const texts = new Set();
    for (const f of found) {
      if (readings.length >= READINGS || texts.has(f.read.slice(0, f.n))) continue;
      texts.add(f.read.slice(0, f.n));
      const words = f.mode === 'delta' ? this.firstWords(f.path, page.slice(0, page.indexOf(f.read.slice(0, f.n)))) : this.firstSnapshot(f.path, f.read);
      if (f.short && !words) continue;
      const r = new Reading({ path: f.path, mode: f.mode, first: words && words.path, firstEv: words && words.ev, firstId: words ? words.id : null, chain: f.mode === 'snapshot' ? f.read : null });
      r.where = where;
      readings.push(r);
    }
    return readings;
  }

  /**
   * The page's text of a changed element, held to the readings that stand: each one's run there
   * (the longest start of its text the element holds), and a reading ruled out where another's
   * run goes on past the end of its own. Returns true when the followed reading was ruled out
   * and another is followed now (`restart`).
   * @param {string} text
   * @param {unknown} where
   */
  verify(text, where) {
    if (!this.verifying) return false;
    const page = normal(text);
    if (page.length < MIN_MATCH) return false;
    const cur = /** @type {Reading} */ (this.learned);
    const shown = shownPrefix(cur.n, page);
    // The page shows none of the answer here, or all of it: nothing to tell, when no other
    // reading stands.
    if (!this.#others.length && (shown < MIN_MATCH || shown >= cur.n.length) && (cur.first || cur.mode !== 'delta')) return false;
    if (shown >= MIN_MATCH && !this.#lost) this.discover(page, where, shown);
    const all = [cur, ...this.#others];
    /** @type {Map<Reading, { s: number, e: number }>} */
    const runs = new Map();
    for (const r of all) {
      const n = r.n;
      const m = shownPrefix(n, page);
      if (m < MIN_MATCH) continue;
      const s = page.indexOf(n.slice(0, m));
      runs.set(r, { s, e: s + m });
      if (m > r.best) [r.best, r.where] = [m, where];
    }
    for (const [c, rc] of runs) {
      for (const [d, rd] of runs) {
        if (d === c || !(rd.s < rc.e && rc.e < rd.e)) continue;
        c.out = `the page went on with ${rd.e - rc.e} characters of ${d.path} where its text stopped`;
        break;
      }
    }
    const out = all.filter((r) => r.out);
    if (!out.length) return false;
    this.#droppedN += out.length;
    this.#others = this.#others.filter((r) => !r.out && r.items);
    if (!cur.out) return false;
    // The followed reading was ruled out: the best that stands is followed from the start.
    if (!this.#others.length) {
      // None stands: it is followed still (the report's match says how far off it is).
      cur.out = '';
      return false;
    }
    let won = this.#others[0];
    for (const o of this.#others) if (o.best > won.best) won = o;
    this.#others = this.#others.filter((o) => o !== won);
    this.learned = won;
    this.#switched = /** @type {Item[]} */ (won.items);
    won.items = [];
    this.restart = true;
    return true;
  }

  /**
   * Readings the page shows now that were not tried yet, each read from the answer's start (the
   * kept events): where the followed one shows less of its text than it read (the page lags, or
   * goes on with other text), and, once, the followed deltas with the message that carried their
   * first words (the next answer on a path followed at once).
   * @param {string} page
   * @param {unknown} where
   * @param {number} shown how much of the followed reading's text the page shows
   */
  discover(page, where, shown) {
    const cur = /** @type {Reading} */ (this.learned);
    /** @type {Reading[]} */
    const more = [];
    if (!cur.first && cur.mode === 'delta' && !this.#triedKeys.has(`first ${cur.path}`)) {
      const at = page.indexOf(cur.n.slice(0, shown));
      const words = at > 0 ? this.firstWords(cur.path, page.slice(0, at)) : null;
      if (words) {
        this.#triedKeys.add(`first ${cur.path}`);
        more.push(new Reading({ path: cur.path, mode: 'delta', first: words.path, firstEv: words.ev, firstId: words.id }));
      }
    }
    if (shown < cur.n.length) more.push(...this.candidates(page, where, (mode, path) => this.#triedKeys.has(`${mode} ${path}`)));
    for (const r of more) {
      if (this.#others.length >= READINGS - 1) break;
      this.#triedKeys.add(`${r.mode} ${r.path}`);
      r.where = where;
      for (const [t, ev] of this.kept) {
        for (const it of r.take(t, ev, this.question)) if (!it.done && r.items) r.items.push(it);
      }
      this.#others.push(r);
      this.#triedN++;
    }
  }

  // Where a message before the path's first snapshot carried the answer's first snapshot (Mesop
  // sends the new message's whole tree first, then the markdown's updates): a value of a few
  // events before, elsewhere, that the chain's text begins with.
  /**
   * @param {string} path
   * @param {string} chain
   * @returns {{ path: string, ev: Read, id: null } | null}
   */
  firstSnapshot(path, chain) {
    // The path's own first snapshot of the answer (another element's value on the path, the
    // question's row, is not one): an earlier one is a start of it.
    const of = (/** @type {string} */ p, /** @type {string} */ v) => p === path && !!normal(v) && chain.startsWith(normal(v));
    const at = this.kept.findIndex(([, ev]) => ev.values.some(([p, v]) => of(p, v)));
    if (at < 0) return null;
    const own = this.kept[at][1].values.find(([p, v]) => of(p, v));
    const first = normal(/** @type {[string, string]} */ (own)[1]);
    // The nearest such event: its first words may be few (two letters or more).
    for (let i = at - 1; i >= 0 && i >= at - 8; i--) {
      for (const [p, v] of this.kept[i][1].values) {
        const n = normal(v);
        if (p !== path && n.length >= 2 && n.length < first.length && n !== this.question && first.startsWith(n) && chain.startsWith(n)) return { path: p, ev: this.kept[i][1], id: null };
      }
    }
    return null;
  }

  // Where a message before the first delta carried the answer's first words: the page shows
  // them just before the deltas' text (`before`). The latest such event of the answer's own id,
  // else the nearest event before the deltas whose value the page shows there (the message that
  // created the answer's element, whatever its id names: Bokeh's names the document's model),
  // names the path.
  /**
   * @param {string} path
   * @param {string} before
   * @returns {{ path: string, ev: Read, id: string | null } | null} the path and the event, and
   *   the id of the answer's values where that message names another (null where it names the
   *   same, or none)
   */
  firstWords(path, before) {
    const at = this.kept.findIndex(([, ev]) => ev.values.some(([p, v]) => p === path && v));
    if (at <= 0 || !before) return null;
    const id = this.kept[at][1].id;
    /** @type {{ path: string, ev: Read, id: string | null } | null} */
    let near = null;
    for (let i = at - 1; i >= 0 && i >= at - 32; i--) {
      const ev = this.kept[i][1];
      const own = id !== null && ev.id === id;
      if (near !== null && !own) continue;
      /** @type {[string, number] | null} */
      let found = null;
      for (const [p, v] of ev.values) {
        const n = normal(v);
        if (n && p !== path && n !== this.question && before.endsWith(n) && (!found || n.length > found[1])) found = [p, n.length];
      }
      if (!found) continue;
      if (own || id === null) return { path: found[0], ev, id: own || ev.id === null ? null : id };
      near ??= { path: found[0], ev, id: ev.id === null ? null : id };
    }
    return near;
  }

  /**
   * The items to hand over now: after `shown()` taught the path, the kept events read through
   * it (each reading that stands reads them too); after another reading won, that reading's items
   * from the answer's start (`restart`).
   */
  replay() {
    if (this.#switched) {
      const items = this.#switched;
      this.#switched = null;
      return items;
    }
    /** @type {Item[]} */
    const out = [];
    // The events stay kept while the answer is read: another reading may be read from them.
    for (const [t, ev] of [...this.kept]) {
      if (!this.learned) break;
      const got = this.items(t, ev);
      // Another reading won at the answer's end: its items are the answer's, from the start
      // (nothing of this replay was handed over yet).
      if (this.restart) {
        this.restart = false;
        out.length = 0;
      }
      for (const it of got) out.push(it);
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
/** @type {Array<{ name: string, mode: Mode, claims: (ev: Read) => boolean, path: (ev: Read) => string | null, match: (path: string) => (p: string) => boolean }>} */
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
