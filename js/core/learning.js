// The learning chunk (issues 47 and 58), imported by js/core/learners.js at the first stream or
// socket no reader of the core's holds (the extension and the injected script import it when they
// start):
// - `Sidecar`: a guessed stream's own reading, beside the core's, its events framed by the core's
//   framer (wasm.js `framer`: one path for bytes);
// - `socketLearner`: a socket's Open WebUI reader and its learner;
// - `Teacher`: the DOM watch's side, the text around each change while something learns or the
//   user has just asked, and the answers that grow on the page with no stream to carry them;
// - `unreadReport`: the report of such an answer.
// What the learner reads, it reads after the app's own handlers (a task of its own, or when the
// page next changes, whichever comes first), never more than CAPS.event of one event. A page
// that profiles its own streams (`profiler.fetch`, `track`) never loads this chunk.

import { Learner, normal } from '../transports/learn.js';
import { answers, asks, lastAsk } from '../transports/answers.js';
import { selectorOf } from '../browser/dom.js';
import { FAILED_NULL } from '../schema.js';
import { WEAK } from './weak.js';
import { framer, load } from './wasm.js';

/** @typedef {import('./learners.js').LearningParts} Parts */
/** @typedef {import('./stream.js').StreamOptions} StreamOptions */
/** @typedef {import('./learners.js').Seen} Seen */
/** @typedef {import('../transports/learn.js').Item} Item */
/** @typedef {import('../transports/answers.js').Answers} Answers */

// Bytes kept for a guessed stream until the module (its framer) has loaded.
const PENDING_BYTES = 4 * 1024 * 1024;

/**
 * Runs what it is given in a task of its own, in order, after the handlers of the app that
 * received the data (a socket's `message` listeners run after tokenpaint's, which was added
 * first): the app never waits for the learner. The DOM watch runs what waits first when the page
 * changes (`Teacher.flush`), so that an answer's arrivals are known before its text is read.
 * Returns `later(fn)`.
 * @param {Teacher} teacher
 */
function tasks(teacher) {
  /** @type {Array<() => void>} */
  let queue = [];
  let scheduled = false;
  const flush = () => {
    teacher.pending.delete(flush);
    scheduled = false;
    const q = queue;
    queue = [];
    for (const fn of q) {
      try {
        fn();
      } catch {
        /* tokenpaint's problem, never the page's */
      }
    }
  };
  return (/** @type {() => void} */ fn) => {
    queue.push(fn);
    if (scheduled) return;
    scheduled = true;
    teacher.pending.add(flush);
    setTimeout(() => scheduled && flush(), 0);
  };
}

/**
 * The shell's own reading of a stream the profiler only guessed is an answer (instrument() with
 * no match, the injected script): its events go to a learner (learn.js) beside the core, until
 * either the core's reader holds the stream (a known wire format), an app's reader claims it
 * (Gradio), or the page shows text one of its paths carried. In the last two cases the answer
 * is read from that path, every event kept so far read again at its own time, into a stream of
 * its own, and the core's stream of the raw bytes is dropped (`drop()`).
 */
export class Sidecar {
  /**
   * @param {Teacher} teacher the chunk's own state, and what it works with (`parts`)
   * @param {import('./stream.js').ResponseLike} res
   * @param {StreamOptions & { asks?: boolean }} o
   * @param {() => import('./stream.js').Stream | null | undefined} stream
   * @param {() => void} drop
   */
  constructor(teacher, res, o, stream, drop) {
    const parts = teacher.parts;
    // What it works with, set once.
    /** @readonly */
    this.parts = parts;
    /** @readonly */
    this.teacher = teacher;
    /** @readonly */
    this.o = o;
    /** @readonly */
    this.stream = stream;
    /** @readonly */
    this.drop = drop;
    this.learner = new Learner({ readers: parts.options.appReaders !== false });
    /** @readonly */
    this.contentType = String((res.headers && typeof res.headers.get === 'function' && res.headers.get('content-type')) || '');
    /** @type {ReturnType<typeof framer>} */
    this.framer = null;
    /** @type {Array<[Uint8Array, number]> | null} */
    this.pending = [];
    this.pendingBytes = 0;
    /** @type {Answers | null} */
    this.list = null;
    this.off = false;
    this.events = 0;
    /** @type {number | null} */
    this.firstAt = null;
    /** @readonly */
    this.later = tasks(teacher);
    parts.learners.add(this);
  }

  /**
   * A chunk of the body, read at `t`.
   * @param {Uint8Array} bytes
   * @param {number} t
   */
  chunk(bytes, t) {
    if (this.off) return;
    if (this.firstAt === null) this.firstAt = t;
    // A copy: the app may reuse its buffer before the learner reads it.
    const copy = bytes.slice();
    this.later(() => {
      try {
        this.take(copy, t);
      } catch {
        this.stop();
      }
    });
  }

  /**
   * @param {Uint8Array} bytes
   * @param {number} t
   */
  take(bytes, t) {
    if (this.off) return;
    if (!this.framer) this.framer = framer(this.contentType);
    if (!this.framer) {
      // The module has not loaded yet: the bytes wait for it (a stream that began at once).
      if (!this.pending || (this.pendingBytes += bytes.byteLength) > PENDING_BYTES) return this.stop();
      if (this.pending.length === 0) load().then(() => this.later(() => this.drain()), () => this.stop());
      this.pending.push([bytes, t]);
      return;
    }
    this.drain();
    for (const [name, data] of this.framer.push(bytes)) this.event(t, data, name);
    // Whether the core's reader holds it is asked after a few events.
    if (!this.list && (this.events === 4 || (this.events > 0 && this.events % 64 === 0))) this.check();
  }

  drain() {
    const pending = this.pending;
    if (!pending || !pending.length || this.off) return;
    this.pending = null;
    for (const [bytes, t] of pending) this.take(bytes, t);
  }

  /**
   * One event of the stream.
   * @param {number} t
   * @param {string} data
   * @param {string} name
   */
  event(t, data, name) {
    this.events++;
    const l = this.learner;
    const items = l.event(t, data, name);
    // A heartbeat is not taught: the watch reads no text for it; nor, once one reading of the
    // answer is left, is an answer being read.
    if (!l.teachable) this.parts.learners.delete(this);
    // Another reading won at the answer's end: its items from the start replace the answer.
    if (l.restart) return this.reopen(items);
    if (l.learned && !this.list) this.takeOver();
    if (this.list) this.hand(items);
  }

  /**
   * The answer read anew by the reading that won (`items`, from its start): the answer's stream
   * opened so far goes without a report, and one is opened for it, shown in the element where
   * the page showed the most of it.
   * @param {Item[]} items
   */
  reopen(items) {
    const l = this.learner;
    l.restart = false;
    if (this.list) this.list.discard();
    this.list = null;
    showWinner(this.parts, l, items);
    this.takeOver();
    this.hand(items);
  }

  /** Before the answer ends by quiet: the reading the page showed the most of is chosen again. */
  settle() {
    const l = this.learner;
    if (!l || this.off || !l.settle()) return false;
    this.parts.learners.delete(this);
    this.reopen(l.replay());
    return true;
  }

  /** @param {Item[]} items */
  hand(items) {
    const list = /** @type {Answers} */ (this.list);
    for (const it of items) list.extracted(it, it.t, this.o.transport || 'fetch');
  }

  /**
   * What it has seen, for a report of an answer nobody could read.
   * @returns {Seen}
   */
  describe() {
    return { url: this.o.url || '', transport: this.o.transport || 'fetch', events: this.events };
  }

  check() {
    const s = this.stream();
    if (this.off || this.list || !s) return;
    if (!WEAK.has(s.call((c) => c.format(s.id), ''))) {
      s.confirm();
      this.stop();
    }
  }

  /**
   * The text of an element the page changed (the DOM watch).
   * @param {string} text
   * @param {Element} [el]
   */
  shown(text, el) {
    if (this.off) return;
    const l = this.learner;
    // An answer being read while other readings of it stand: the page's text decides.
    if (this.list) {
      if (l.shown(text, el)) this.reopen(l.replay());
      if (!l.teachable) this.parts.learners.delete(this);
      return;
    }
    if (!l.shown(text, el)) return;
    const s = this.stream();
    // A reader of the core's holds it (it had not been asked yet), or the core reads the text as
    // it is (SSE data, a text body): the core's stream is the answer.
    if (s && (/** @type {import('../transports/learn.js').Learned} */ (this.learner.learned).path === '$text' || !WEAK.has(s.call((c) => c.format(s.id), '')))) {
      s.confirm();
      return this.stop();
    }
    // The answer's stream is shown in that element, from its first change on.
    const items = this.learner.replay();
    if (el) this.parts.watch().expect(el, leadOf(items));
    this.takeOver();
    this.hand(items);
  }

  takeOver() {
    const how = /** @type {import('../transports/learn.js').Learned} */ (this.learner.learned);
    /** @type {import('../report.js').ReadBy} */
    const read = how.by === 'reader' ? { by: 'reader', format: /** @type {string} */ (how.format) } : readOf(this.learner);
    if (!this.learner.teachable) this.parts.learners.delete(this);
    // Its start: the request, frame or submit that asked (asks.js); else the page's last POST
    // just before it (an app that POSTs, then GETs the stream); else its own request.
    const first = this.firstAt === null ? this.o.start : this.firstAt;
    const ask = this.o.asks ? asks.find(first) : null;
    const post = this.o.asks ? lastAsk(this.o.start) : undefined;
    /** @type {{ answerStart: number, startBy: import('../report.js').StartBy }} */
    let at = { answerStart: this.o.start, startBy: { by: 'request', url: this.o.url } };
    if (ask) at = { answerStart: ask.t, startBy: { by: ask.by, url: ask.url } };
    else if (post !== undefined && this.o.start - post < 10000) at = { answerStart: post, startBy: { by: 'post' } };
    const l = this.learner;
    this.list = answers(this.parts, { ...this.o, guess: false, ...at, format: read.format || 'learned', read, quietMs: this.parts.options.quietMs, settle: () => this.settle(), reading: () => (l && how.by === 'learned' ? l.reading() : null) });
    this.drop();
  }

  /**
   * @param {number} kind
   * @param {number} t
   * @param {string} message
   */
  end(kind, t, message) {
    if (this.off) return;
    this.later(() => {
      if (this.off) return;
      try {
        this.drain();
        if (this.framer) for (const [name, data] of this.framer.finish()) this.event(t, data, name);
        // The stream is over: so is its answer, read by the reading the page showed the most of.
        if (this.list && this.learner.settle()) this.reopen(this.learner.replay());
        if (this.list) this.list.closeAll(kind, t, message);
        else this.teacher.unlearned(this.describe(), t);
      } catch {
        /* the report goes without */
      }
      this.stop();
    });
  }

  stop() {
    this.off = true;
    this.parts.learners.delete(this);
    if (this.framer) this.framer.free();
    this.framer = null;
    this.pending = null;
    // Released: a stopped sidecar is called no more.
    this.learner = /** @type {any} */ (null);
  }
}

/**
 * The answer read anew by the reading that won (`items`, from its start) is shown in the element
 * where the page showed the most of it: the stream opened next claims it.
 * @param {Parts} parts
 * @param {Learner} l
 * @param {Item[]} items
 */
function showWinner(parts, l, items) {
  const where = l.learned && l.learned.where;
  if (where) parts.watch().expect(/** @type {Element} */ (where), leadOf(items));
}

/**
 * How a learned answer is read, for its report: the reading's path, how its values add up
 * (`delta`, `snapshot`), where its first words came if another message carried them, and how
 * many readings were tried and how many of them the page ruled out.
 * @param {Learner} l
 * @returns {import('../report.js').ReadBy}
 */
function readOf(l) {
  return { by: 'learned', path: '', ...l.reading() };
}

/**
 * Where in `text` its `k`-th letter or digit is (the index `normal()` numbers it by).
 * @param {string} text
 * @param {number} k
 */
function rawIndex(text, k) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (normal(text[i]) === '') continue;
    if (n++ === k) return i;
  }
  return text.length;
}

/**
 * The first letters and digits of the answer the items carry (at most 32): how the page's
 * earlier texts of it are known, whichever element showed them (an app may re-create the
 * answer's element at every update).
 * @param {Item[]} items
 */
function leadOf(items) {
  let text = '';
  for (const it of items) {
    if (typeof it.text === 'string') text = it.text;
    else if (typeof it.delta === 'string') text += it.delta;
    if (normal(text).length >= 32) break;
  }
  return normal(text).slice(0, 32);
}

/**
 * One message of Open WebUI 0.12's `events` (recorded from 0.12.4 in
 * tests/recordings/open-webui-0.12.4.json) as `{ id, delta | text, done, usage }`, or null.
 * `{ chat_id, message_id, data: { type, data } }`: `response:completion` carries the server's
 * first raw chunk (`choices`), then a `response.output_text.delta` per token; `chat:completion`
 * the finish chunk, the usage, and last `done: true` with the whole answer in
 * `output[].content[].text`. Presence, titles and lists are not answers.
 * @param {any} payload a Socket.IO `events` payload, JSON
 * @returns {import('../transports/answers.js').Item | null}
 */
export function openWebUiEvent(payload) {
  const event = payload && payload.data;
  const data = event && event.data;
  if (!data || typeof data !== 'object' || typeof payload.message_id !== 'string') return null;
  const id = payload.message_id;
  if (event.type === 'response:completion') {
    if (data.type === 'response.output_text.delta') return typeof data.delta === 'string' ? { id, delta: data.delta } : null;
    const choice = Array.isArray(data.choices) ? data.choices[0] : null;
    if (choice && choice.delta) return { id, delta: typeof choice.delta.content === 'string' ? choice.delta.content : '' };
    return null;
  }
  if (event.type !== 'chat:completion') return null;
  /** @type {{ id: string, usage?: unknown, done?: boolean, text?: string }} */
  const out = { id };
  if (data.usage) out.usage = data.usage;
  if (data.done === true) {
    out.done = true;
    const text = outputText(data.output);
    if (text !== null) out.text = text;
  }
  return out.usage || out.done ? out : null;
}

// The text of a Responses-style `output` (`[{ type: 'message', content: [{ text }] }]`).
/** @param {unknown} output */
function outputText(output) {
  if (!Array.isArray(output)) return null;
  /** @type {string | null} */
  let text = null;
  for (const item of output) {
    if (!item || item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const c of item.content) if (c && typeof c.text === 'string') text = (text || '') + c.text;
  }
  return text;
}

/**
 * A socket's reading of what no reader of the socket's own reads (sockets.js): Open WebUI's
 * `events` (unless `appReaders: false`), else the learner. While it learns it is one of the
 * learners (the DOM watch hands it the text of each changed element); once the page has taught
 * it the answer's path, the events it kept are read again, and every later one as it comes.
 * After each answer it learns again (the next may be shown elsewhere), following the same path at
 * once if the next answer comes on it. Each report says how its answer was read.
 * @param {Teacher} home the chunk's own state, and what it works with (`parts`)
 * @param {import('../transports/answers.js').AnswerOptions} o
 */
export function socketLearner(home, o) {
  const p = home.parts;
  const l = new Learner();
  const apps = p.options.appReaders !== false;
  const later = tasks(home);
  // How the learned answers are read: the path changes if the learner learns another one.
  /** @type {import('../report.js').ReadBy} */
  const read = { by: 'learned', path: '' };
  /** @type {Answers | null} */
  let learned = null;
  /** @type {Answers | null} */
  let reader = null;
  // Set by the first event, before anything reads it (`describe` counts only sockets with events).
  let transport = /** @type {import('../report.js').StreamReport['transport']} */ ('');
  let events = 0;
  // An answer over (its end, or quiet): the learner learns the next one anew.
  const onEnd = (/** @type {string} */ id) => {
    // Unless it learned so itself, or the next answer has begun meanwhile.
    if (l.answer && String(l.answer.id ?? '') === id) l.ended();
    teach();
  };
  // Before an answer ends by quiet: the reading the page showed the most of is chosen again.
  const settle = () => {
    if (!l.settle()) return false;
    reopen(l.replay());
    teach();
    return true;
  };
  const list = () => (learned ||= answers(p, { ...o, format: 'learned', read, quietMs: p.options.quietMs, onEnd, settle, reading: () => l.reading() }));
  /** @param {Item[]} items */
  const hand = (items) => {
    if (!items.length) return;
    Object.assign(read, l.reading());
    const to = list();
    for (const it of items) to.extracted(it, it.t, transport);
  };
  // Another reading won: the answers opened so far go without a report, and the answer is read
  // anew by it, shown where the page showed the most of it.
  const reopen = (/** @type {Item[]} */ items) => {
    l.restart = false;
    if (learned) learned.discard();
    showWinner(p, l, items);
    hand(items);
  };
  /** @type {import('./learners.js').PageLearner} */
  const teacher = {
    describe: () => ({ url: o.url || '', transport, events }),
    shown(text, el) {
      const verifying = l.verifying;
      if (!l.shown(text, el)) return;
      if (verifying) {
        reopen(l.replay());
        return teach();
      }
      const items = l.replay();
      if (el) p.watch().expect(el, leadOf(items));
      hand(items);
      teach();
    },
  };
  // Whether the page may teach it now: while it has not learned the path (again, after an end).
  const teach = () => {
    if (l.teachable) p.learners.add(teacher);
    else p.learners.delete(teacher);
  };
  /**
   * @param {number} t
   * @param {unknown} data
   * @param {string} name
   * @param {import('../report.js').StreamReport['transport']} via
   */
  const take = (t, data, name, via) => {
    const r = apps && name === 'events' ? openWebUiEvent(data) : null;
    if (r || reader) {
      if (!reader) {
        p.learners.delete(teacher);
        reader = answers(p, { ...o, format: 'open-webui', read: { by: 'reader', format: 'open-webui' }, quietMs: p.options.quietMs });
      }
      if (r) reader.extracted(r, t, via);
      return;
    }
    transport = via;
    events++;
    const items = l.event(t, data, name);
    if (l.restart) reopen(items);
    else hand(items);
    teach();
    // The page may have shown what this event carried before it was read: offer it again.
    if (!l.learned && l.teachable) home.offer(teacher);
  };
  return {
    /**
     * An event (a Socket.IO event's name and payload, or a message and ''), read after the
     * app's own handlers.
     * @param {number} t
     * @param {unknown} data
     * @param {string} name
     * @param {import('../report.js').StreamReport['transport']} via
     */
    event(t, data, name, via) {
      const copy = data instanceof Uint8Array ? data.slice() : data;
      later(() => take(t, copy, name, via));
    },
    /**
     * @param {number} kind
     * @param {number} t
     * @param {string} message
     */
    closeAll(kind, t, message) {
      later(() => {
        p.learners.delete(teacher);
        if (!learned && !reader && events) home.unlearned(teacher.describe(), t);
        // The socket closed: so is the answer, read by the reading the page showed the most of.
        if (learned && l.settle()) reopen(l.replay());
        if (learned) learned.closeAll(kind, t, message);
        if (reader) reader.closeAll(kind, t, message);
      });
    },
  };
}

// The changes kept for a stream a learner finds late: the newest 512, of a million characters
// in all at most (a long page's text, read around each change, would otherwise take megabytes).
const HISTORY = 512;
const HISTORY_CHARS = 1_000_000;
// An answer nobody could read: grown this many times, then still this long.
const UNREAD_STEPS = 5;
const UNREAD_QUIET_MS = 1500;
// After the user's submit, the page is watched this long for an answer, learners or none.
const AFTER_SUBMIT_MS = 60000;

/**
 * The DOM watch's side of learning. `teach(records, t)`: the learners are handed the text around
 * each change (the changed node's element and up to two elements above it, each read once a
 * batch, at most 64), which is kept ([t, element, text], see HISTORY) for the stream a
 * learner opens (`historyOf`); an element whose text keeps growing with no stream to show it is
 * an answer nobody could read, reported as such once the page has stopped changing.
 */
export class Teacher {
  /** @param {Parts} parts what the chunk works with, from its loader (learners.js) */
  constructor(parts) {
    /** @readonly */
    this.parts = parts;
    // What the learners have yet to read (`tasks`): run first when the page changes.
    /** @type {Set<() => void>} */
    this.pending = new Set();
    // Learners that ended without learning (`{ url, transport, events, endedAt }`, the newest
    // 16): the streams a report of an answer nobody could read names.
    /** @type {Array<Seen & { endedAt: number }>} */
    this.unreadable = [];
    /** @type {Array<[number, Element, string]>} */
    this.history = [];
    this.kept = 0;
    /** @type {Map<Element, { text: string, steps: number, timer: ReturnType<typeof setTimeout> | 0, since: number }>} */
    this.growing = new Map();
  }

  /** Runs what the learners have yet to read (the page changed: their arrivals come first). */
  flush() {
    for (const f of [...this.pending]) f();
  }

  /**
   * A learner ended without learning: what it saw (`describe()`), ended at `t`.
   * @param {Seen} d
   * @param {number} t
   */
  unlearned(d, t) {
    this.unreadable.push({ ...d, endedAt: t });
    if (this.unreadable.length > 16) this.unreadable.shift();
  }

  /**
   * Whether changes are read now: while something learns, or after the user asked.
   * @param {number} now
   */
  watching(now) {
    if (this.parts.learners.size) return true;
    const last = asks.submits.length ? asks.submits[asks.submits.length - 1].t : -Infinity;
    return now - last < AFTER_SUBMIT_MS || this.growing.size > 0;
  }

  /**
   * @param {MutationRecord[]} records
   * @param {number} t
   */
  teach(records, t) {
    const p = this.parts;
    /** @type {Set<Element>} */
    const seen = new Set();
    /** @type {Element[]} */
    const starts = [];
    for (const r of records) {
      const el = r.target && r.target.nodeType === 1 ? /** @type {Element} */ (r.target) : r.target && r.target.parentElement;
      if (el) starts.push(el);
      else if (r.target && r.target.nodeType === 11) {
        // A change at the top of a shadow root: the elements it added are read (the host's own
        // text holds none of them: Bokeh's chat messages are shadow roots in shadow roots), and
        // the host above them (marimo's chat is in one).
        for (const n of r.addedNodes || []) if (n.nodeType === 1) starts.push(/** @type {Element} */ (n));
        starts.push(/** @type {ShadowRoot} */ (r.target).host);
      }
    }
    for (const start of starts) {
      // A style's or a script's text is never shown.
      /** @type {Element | null} */
      let el = start.localName === 'style' || start.localName === 'script' ? start.parentElement : start;
      for (let up = 0; el && up < 3 && seen.size < 64; up++) {
        if (seen.has(el) || el === document.body || el === document.documentElement) break;
        seen.add(el);
        const next = /** @type {Element | null} */ (el.parentElement || (el.parentNode && el.parentNode.nodeType === 11 ? /** @type {ShadowRoot} */ (el.parentNode).host : null));
        el = next;
      }
    }
    if (seen.size) p.frame();
    let first = true;
    for (const el of seen) {
      const text = (el.textContent || '').slice(0, 20000);
      if (p.learners.size) {
        this.history.push([t, el, text]);
        this.kept += text.length;
        while (this.history.length > HISTORY || (this.kept > HISTORY_CHARS && this.history.length > 1)) this.kept -= /** @type {[number, Element, string]} */ (this.history.shift())[2].length;
      }
      if (first) this.grew(el, text);
      first = false;
      for (const l of [...p.learners]) l.shown(text, el);
      if (!p.learners.size) break;
    }
    if (!p.learners.size) {
      this.history.length = 0;
      this.kept = 0;
    }
  }

  /**
   * A learner that read an event after the page had shown it: the latest texts are offered to
   * it again (the newest change of each of the last 16 elements: a page that re-creates the
   * answer's element at every update leaves many behind).
   * @param {import('./learners.js').PageLearner} l
   */
  offer(l) {
    /** @type {Set<Element>} */
    const done = new Set();
    for (let i = this.history.length - 1; i >= 0 && done.size < 16; i--) {
      const [, el, text] = this.history[i];
      if (done.has(el)) continue;
      done.add(el);
      if (!this.parts.learners.has(l)) return;
      l.shown(text, el);
    }
  }

  /**
   * The page's texts of an answer that begins with `lead` (letters and digits) since `since`,
   * oldest first: at each change, the longest text of an element that begins so (the answer with
   * what follows it inside its message), whichever element it was.
   * @param {string} lead
   * @param {number} since
   * @returns {Array<[number, string]>}
   */
  answerHistory(lead, since) {
    /** @type {Array<[number, string, boolean]>} */
    const out = [];
    const head = lead.slice(0, 8);
    for (const [t, , text] of this.history) {
      if (t < since) continue;
      const n = normal(text);
      // Its text begins the answer (as far as it goes), or holds its beginning further on, or
      // ends with the answer's first letters (a label before the first word, in one element).
      let at = n && (n.startsWith(lead) || lead.startsWith(n)) ? 0 : -1;
      if (at < 0) {
        const k = n.lastIndexOf(head);
        const rest = k > 0 ? n.slice(k) : '';
        if (rest && (rest.startsWith(lead) || lead.startsWith(rest))) at = k;
      }
      for (let k = Math.max(1, n.length - lead.length); at < 0 && k <= n.length - 2; k++) if (lead.startsWith(n.slice(k))) at = k;
      if (at < 0) continue;
      // An element that shows more before the answer (a change that added the whole message,
      // the question above it): its text from the answer on.
      const starts = at === 0;
      const from = starts ? text : text.slice(rawIndex(text, at));
      const last = out[out.length - 1];
      if (!last || last[0] !== t) out.push([t, from, starts]);
      // At one change: the longest that begins as the answer does; else the tightest around it.
      else if (starts ? !last[2] || from.length > last[1].length : !last[2] && from.length < last[1].length) out[out.length - 1] = [t, from, starts];
    }
    return out.map(([t, text]) => [t, text]);
  }

  /**
   * The changes `el` showed (`[t, text]`, oldest first), and before the first of them those of
   * the nearest element around it that changed earlier (an app that renders a new paragraph
   * once the first words are in).
   * @param {Element} el
   * @returns {Array<[number, string]>}
   */
  historyOf(el) {
    const own = this.history.filter((h) => h[1] === el);
    const first = own.length ? own[0][0] : Infinity;
    /** @type {Array<[number, Element, string]>} */
    let before = [];
    for (let up = el.parentElement, n = 0; up && n < 2 && !before.length; up = up.parentElement, n++) {
      before = this.history.filter((h) => h[1] === up && h[0] < first);
    }
    return [...before, ...own].map(([t, , text]) => [t, text]);
  }

  // An element whose text keeps growing, and that no stream shows: once it has grown
  // UNREAD_STEPS times and stopped for UNREAD_QUIET_MS, an answer is on the page that no stream
  // or socket seen carried. Text fields and editable regions are not answers.
  /**
   * @param {Element} el
   * @param {string} text
   */
  grew(el, text) {
    const g = this.growing.get(el);
    if (!g) {
      if (this.growing.size < 64 && !el.closest('textarea, input, [contenteditable]')) this.growing.set(el, { text, steps: 0, timer: 0, since: performance.now() });
      return;
    }
    const grows = text.length > g.text.length && text.startsWith(g.text.slice(0, Math.min(g.text.length, 64)));
    g.text = text;
    if (!grows) return;
    g.steps++;
    clearTimeout(g.timer);
    g.timer = setTimeout(() => {
      this.growing.delete(el);
      if (g.steps >= UNREAD_STEPS && el.isConnected && !this.parts.watch().shows(el)) this.unread(el, g.since);
    }, UNREAD_QUIET_MS);
  }

  // The report of an answer that grew in `el` since `since`, with what was seen (the learners
  // that had events then), when something was seen or the user had asked just before (else the
  // text is most likely no answer: a clock, a log).
  /**
   * @param {Element} el
   * @param {number} since
   */
  unread(el, since) {
    const p = this.parts;
    const ended = this.unreadable.filter((d) => d.endedAt >= since);
    const seen = [...[...p.learners].map((l) => l.describe()), ...ended].filter((d) => d && d.events > 0);
    const asked = asks.submits.some((s) => s.t <= since && since - s.t < AFTER_SUBMIT_MS);
    if (seen.length || asked) p.reports.deliver(unreadReport(el, seen, p.rate));
  }
}

/**
 * An answer grew on the page in `el` and none of the streams and sockets `seen` carried it: a
 * report that says so (`read.by: 'none'`), with every figure unknown, never a guess.
 * @param {Element} el
 * @param {Seen[]} seen
 * @param {number} rate
 * @returns {import('../report.js').UnreadReport} a report (its figures the failed report's nulls)
 */
export function unreadReport(el, seen, rate) {
  const why = seen.length
    ? `cannot read this app's stream: an answer grew on the page, and none of the ${seen.length} stream${seen.length === 1 ? '' : 's'} and sockets open meanwhile carried its text in a form tokenpaint could find`
    : "cannot read this app's stream: an answer grew on the page after the user asked, and tokenpaint saw no stream or socket that could carry it";
  /** @type {Omit<import('../report.js').UnreadReport, import('../report.js').FailedNull>} */
  const report = {
    id: 0,
    url: seen.length ? seen[0].url : '',
    transport: seen.length ? seen[0].transport : 'unknown',
    status: 'incomplete',
    error: { kind: 'unread', code: null, message: why },
    diagnosis: [{ verdict: 'insufficient-evidence', evidence: { streams: seen.length }, fixId: 'insufficient-evidence', fix: `tokenpaint ${why}. Give it the events with instrument({ extract }) or profiler.stream(), or report the app's protocol.`, missing: ['stream'], gain: null }],
    unavailable: ['stream'],
    sampleRate: rate,
    element: { selector: selectorOf(el), how: 'document' },
    read: { by: 'none', why, seen: seen.map((x) => ({ url: x.url, transport: x.transport, events: x.events })) },
    start: { by: 'unknown' },
  };
  for (const k of FAILED_NULL) /** @type {Record<string, unknown>} */ (report)[k] = null;
  return /** @type {import('../report.js').UnreadReport} */ (report);
}
