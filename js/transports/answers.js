// The open answers of one socket, or of one stream whose answer is read in the shell (an app's
// reader, the learner): each answer is a stream of the core. An answer is handed over as items
// `{ id, delta | text, done, usage }` (`text`: the answer so far, a snapshot; what is new is
// fed), and crosses into the core as the SSE events of an OpenAI chat stream (so that usage is
// read as a server's), or as plain text for the app's own `extract`.

import { Asks } from './asks.js';

// Text to the bytes a stream's chunks are.
const encoder = new TextEncoder();
const bytesOf = (/** @type {string} */ text) => encoder.encode(text);

/** What the page sent and the user submitted, where instrument() sees them (asks.js). */
export const asks = new Asks();

// When the page last asked for something (a POST by fetch or XMLHttpRequest): the request of an
// answer that comes over another channel (a socket, a second stream), where no submit was seen.
let askedAt = -Infinity;
export function asked(/** @type {number} */ t) {
  askedAt = t;
}
/**
 * The last ask at or before `t`, if any.
 * @param {number} t
 */
export function lastAsk(t) {
  return askedAt <= t ? askedAt : undefined;
}

const ASK_MS = 30000;

const chunkOf = (/** @type {string} */ delta) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: delta } }] })}\n\n`;

/** @param {unknown} usage */
function usageOf(usage) {
  if (!usage || typeof usage !== 'object') return null;
  const u = /** @type {Record<string, unknown>} */ (usage);
  const n = (/** @type {string[]} */ ...keys) => {
    for (const k of keys) if (Number.isFinite(u[k])) return /** @type {number} */ (u[k]);
    return undefined;
  };
  const prompt = n('prompt_tokens', 'input_tokens');
  const completion = n('completion_tokens', 'output_tokens');
  if (prompt === undefined && completion === undefined) return null;
  return { prompt_tokens: prompt, completion_tokens: completion };
}

/**
 * `p`: what opens a stream (hub.js `feed`); `o`: the stream options (url, label, target, …) with `sentAt()` (when the
 * socket last sent, if known), `answerStart` (the request start, when known for every answer), `read`
 * (how the answer is read: `{ by, format | path }`; without it, the app's own extract: plain
 * text).
 */
/** @typedef {ReturnType<typeof answers>} Answers */
/**
 * An answer's item as a reader hands it over (`end`: how a done one ended, `marker` by default).
 * @typedef {{ id?: unknown, delta?: unknown, text?: unknown, done?: unknown, usage?: unknown, end?: unknown }} Item
 */
/**
 * `settle`: asked before an answer ends by quiet, whether whoever reads the answers chose another
 * reading of it at its end (then the answers were discarded and opened again: the quiet end waits).
 * `reading`: how the answer was read, as it stands when it ends (the learner's readings tried and
 * ruled out), into its `read`.
 * @typedef {import('../core/stream.js').StreamOptions & { sentAt?: () => number | undefined, answerStart?: number, asks?: boolean, quietMs?: number, onEnd?: (id: string) => void, settle?: () => boolean, reading?: () => Partial<import('../report.js').ReadBy> | null }} AnswerOptions
 */
/**
 * An open answer: its sink, its text so far, its end-of-finish timer (OpenAI chunks) or quiet
 * timer, and when its last item came.
 * @typedef {{ f: import('../core/stream.js').Sink | null, text: string, timer: ReturnType<typeof setTimeout> | 0, finished: boolean, synth: boolean, read: import('../core/stream.js').StreamOptions['read'], last: number }} Open
 */

/**
 * The start of an answer whose first event came at `t`: given (`answerStart`); else the request
 * or frame after the user's submit that carried the question, or the submit (asks.js); else the
 * page's last POST within ASK_MS before it (apps that ask over HTTP and answer over a socket);
 * else the socket's last frame out before it; else unknown.
 * @param {AnswerOptions} o
 * @param {number} t
 * @returns {{ start?: number, startUnknown?: boolean, startBy: import('../report.js').StartBy }}
 */
export function startOf(o, t) {
  if (typeof o.answerStart === 'number') return { start: o.answerStart, startBy: o.startBy || { by: 'request' } };
  // Asks are seen only where instrument() patched fetch, XMLHttpRequest and WebSocket.
  if (o.asks) {
    const a = asks.find(t);
    if (a) return { start: a.t, startBy: { by: a.by, url: a.url } };
    const ask = lastAsk(t);
    if (ask !== undefined && t - ask <= ASK_MS) return { start: ask, startBy: { by: 'post' } };
  }
  const sent = o.sentAt ? o.sentAt() : undefined;
  if (typeof sent === 'number' && sent <= t) return { start: sent, startBy: { by: 'sent' } };
  return { startUnknown: true, startBy: { by: 'unknown' } };
}

/**
 * @param {{ feed: import('../core/learners.js').LearningParts['feed'] }} p what opens an answer's stream (hub.js `feed`)
 * @param {AnswerOptions} o
 */
export function answers(p, o) {
  /** @type {Map<string, Open>} */
  const open = new Map();
  /** @type {string | null} */
  let latest = null;
  /**
   * @param {string} id
   * @param {number} t
   * @param {boolean} plain
   * @param {import('../report.js').StreamReport['transport']} transport
   * @returns {Open}
   */
  const start = (id, t, plain, transport) => {
    const a = opened(p, o, t, plain, transport);
    open.set(id, a);
    return a;
  };
  /**
   * @param {string} id
   * @param {number} kind
   * @param {number} t
   * @param {string} message
   * @param {boolean} [doneMarker]
   * @param {import('../report.js').ReadBy['end']} [how]
   */
  const close = (id, kind, t, message, doneMarker, how = 'closed') => {
    const a = open.get(id);
    open.delete(id);
    if (!a || !a.f) return;
    clearTimeout(a.timer);
    const reading = a.read && o.reading ? o.reading() : null;
    if (a.read && reading) Object.assign(a.read, reading);
    if (a.read) a.read.end = how;
    if (doneMarker || a.synth) a.f.chunk(bytesOf('data: [DONE]\n\n'), t);
    a.f.end(kind, t, message);
    // Whoever reads the answers (a learner) learns that this one is over.
    if (o.onEnd) o.onEnd(id);
  };
  // An answer read in the shell on a socket or stream that stays open (an app that sends no end,
  // or one no reader saw): over once nothing came for quietMs and its element did not change
  // meanwhile; it ended with its last item.
  const quietMs = typeof o.quietMs === 'number' && o.quietMs > 0 ? o.quietMs : 0;
  /** @param {string} id */
  const quiet = (id) => {
    const a = open.get(id);
    if (!a || !a.f || !quietMs) return;
    clearTimeout(a.timer);
    const wait = Math.max(a.last, a.f.changedAt()) + quietMs - performance.now();
    if (wait > 0) a.timer = setTimeout(() => quiet(id), wait);
    // Another reading of the answer won at its end: it was opened again, and ends by quiet then.
    else if (!(o.settle && o.settle())) close(id, 0, a.last, '', false, 'quiet');
  };
  return {
    /**
     * `{ id, delta | text, done, usage }`: `text` is the answer so far; what is new is fed.
     * @param {Item | null | undefined} r
     * @param {number} t
     * @param {import('../report.js').StreamReport['transport']} transport
     */
    extracted(r, t, transport) {
      if (!r || typeof r !== 'object') return;
      const id = String(r.id ?? '');
      // An end of an answer that is not open (ended already, or never begun) opens none.
      if (!open.has(id) && typeof r.delta !== 'string' && typeof r.text !== 'string') return;
      const a = open.get(id) || start(id, t, true, transport);
      const delta = newPart(a, r);
      if (a.f && delta) a.f.chunk(bytesOf(a.synth ? chunkOf(delta) : delta), t);
      const usage = a.synth && usageOf(r.usage);
      if (a.f && usage) a.f.chunk(bytesOf(`data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage })}\n\n`), t);
      if (delta || usage) a.last = t;
      if (r.done) close(id, 0, t, '', false, typeof r.end === 'string' ? /** @type {import('../report.js').ReadBy['end']} */ (r.end) : 'marker');
      else if (a.synth && quietMs && !a.timer) a.timer = setTimeout(() => quiet(id), quietMs);
    },
    /**
     * One OpenAI chunk message; the answer ends at `[DONE]` or once messages stop after its finish.
     * @param {string} text
     * @param {number} t
     * @param {import('../report.js').StreamReport['transport']} transport
     */
    openai(text, t, transport) {
      const m = openaiMessage(text);
      if (!m) return false;
      // A message without an id (or one that cannot be read) belongs to the answer before it.
      const id = m.id || latest;
      if (id === null) return false;
      const a = open.get(id) || (m.id ? start(id, t, false, transport) : null);
      latest = id;
      if (!a) return false;
      clearTimeout(a.timer);
      if (m.end) {
        close(id, 0, t, '', true, 'marker');
        return true;
      }
      if (a.f) a.f.chunk(bytesOf(`data: ${text}\n\n`), t);
      // A finish_reason may be followed by the usage chunk.
      if (m.done) a.finished = true;
      if (a.finished) a.timer = setTimeout(() => close(id, 0, t, '', true, 'marker'), 100);
      return true;
    },
    /** Every open answer goes without a report (another reading of them is opened instead). */
    discard() {
      discardAll(open);
      latest = null;
    },
    /**
     * The socket or stream closed: answers that finished are done; the others end as `kind`.
     * @param {number} kind
     * @param {number} t
     * @param {string} message
     */
    closeAll(kind, t, message) {
      for (const [id, a] of [...open]) {
        if (a.finished) close(id, 0, t, '', true, 'marker');
        else close(id, kind, t, kind ? message : '');
      }
    },
  };
}

/**
 * Every open answer of `open` goes without a report.
 * @param {Map<string, Open>} open
 */
function discardAll(open) {
  for (const a of open.values()) {
    clearTimeout(a.timer);
    if (a.f) a.f.discard();
  }
  open.clear();
}

/**
 * An answer's stream, opened: its first item came at `t`; `plain` (the app's own extract), or
 * read in the shell (`o.read`: a reader's or a learned reading's items).
 * @param {{ feed: import('../core/learners.js').LearningParts['feed'] }} p
 * @param {AnswerOptions} o
 * @param {number} t
 * @param {boolean} plain
 * @param {import('../report.js').StreamReport['transport']} transport
 * @returns {Open}
 */
function opened(p, o, t, plain, transport) {
  const headers = new Headers({ 'content-type': plain ? 'text/plain' : 'text/event-stream' });
  const format = plain && !o.read ? 'text' : o.format || 'openai-chat';
  const at = startOf(o, t);
  // Each answer says how it ended (`read.end`), so each has its own copy of how it is read.
  const read = o.read ? { ...o.read } : null;
  // An answer a reader found is one: never guessed at again.
  // Its headers came with its first message (for a stream read in the shell, with the
  // stream's own): an answer learned late is opened after its first events arrived.
  const headersAt = typeof o.headersAt === 'number' ? o.headersAt : t;
  // A learned reading is a hypothesis: the core gives no figure from it where the page shows
  // less than 99% of its text.
  const learned = !!read && read.by === 'learned';
  return { f: p.feed({ status: 200, headers }, { ...o, ...at, read, format, transport, guess: false, headersAt, learned }), text: '', timer: 0, finished: false, synth: !!o.read, read, last: t };
}

/**
 * What item `r` adds to answer `a` (whose text it brings up to date): its delta, or what follows
 * the part a snapshot shares with the last one.
 * @param {Open} a
 * @param {Item} r
 */
function newPart(a, r) {
  if (typeof r.text !== 'string') {
    const delta = typeof r.delta === 'string' ? r.delta : '';
    a.text += delta;
    return delta;
  }
  let same = 0;
  const max = Math.min(a.text.length, r.text.length);
  while (same < max && a.text.charCodeAt(same) === r.text.charCodeAt(same)) same++;
  a.text = r.text;
  return r.text.slice(same);
}

/**
 * The answer a chat.completion.chunk message belongs to, and whether it ends it, without parsing it.
 * @param {string} text
 * @returns {{ id: string | null, end?: boolean, done?: boolean } | null}
 */
function openaiMessage(text) {
  // A chunk is small: a long message is none, and is not scanned (the app waits for tokenpaint's
  // listener, which runs first).
  if (text.length > 65536) return null;
  if (text.length < 16 && text.trim() === '[DONE]') return { id: null, end: true };
  if (text.indexOf('"choices"') < 0) return null;
  const m = /"id"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text);
  return { id: m ? m[1] : '', done: /"finish_reason"\s*:\s*"/.test(text) };
}
