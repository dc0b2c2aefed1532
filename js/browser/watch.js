// The DOM watch: which element shows each stream's answer, and what changed in it. A change in
// an observed element (or in an open shadow root found in it) is matched against each open
// stream: the first element whose text starts like the answer claims the stream (dom.js), and
// each later change is read (only the appended part when the page appends) and queued for the
// core with its time. The watch owns the observers and, per stream, the element that shows it
// and the text it showed last.

import { touched, changes, resumeAt, appendedText, leadingText, selectorOf } from './dom.js';
import { eachShadowRoot, addedElements, whyUnseen } from './shadow.js';
import { FLUSH_MS } from '../core/link.js';
import { committedOf, resumeLimitOf } from '../core/wasm.js';
import { UNSEEN_NOT_OBSERVED } from '../words.js';

// A text node's old value (a reference to the string it held, not a copy) tells a text that grew
// in place, as React renders it, from one that changed.
export const OBSERVE = { childList: true, subtree: true, characterData: true, characterDataOldValue: true };

/** @typedef {import('../core/stream.js').Stream} Stream */
/** @typedef {Element | Document} Root an observed element, or the whole document */
/**
 * Per stream: the element showing it (`scope`) and how it was found, what it showed last
 * (`text`), the furthest offset the core can resume a re-render from (`limit`), the observer of
 * a target given with the stream (`mo`), and whether its earlier changes are being replayed.
 * @typedef {{ scope: Element | null, how: import('../report.js').ShownIn['how'] | null, unsure: boolean, text: string, limit: number, mo: MutationObserver | null, replaying: boolean }} View
 */
/**
 * What a change is read from: a MutationRecord, or one made up for text the page already shows.
 * @param {unknown} record
 */
const asRecords = (record) => /** @type {MutationRecord[]} */ (record);

export class DomWatch {
  /** @type {Set<Stream>} */
  #streams;
  /** @type {import('../core/link.js').CoreLink} */
  #link;
  /** @type {() => void} */
  #committed;
  /** @type {Map<ShadowRoot, { mo: MutationObserver, owner: Root }>} */
  #shadows;
  #lastShadowScan;
  /** @type {WeakMap<Stream, View>} */
  #views;
  #changed;
  /** @type {import('./find.js').Retired | null} */
  #retired;
  /** @type {typeof import('./find.js') | null} */
  #find;
  /** @type {Set<import('../core/learners.js').PageLearner>} */
  #learners;
  /** @type {import('../core/learners.js').Learning | null} */
  #learning;
  /** @type {Element | null} */
  #expected;
  #lead = '';
  /** @type {Array<{ deref(): Element | undefined }>} */
  #shown;

  /**
   * `streams`: the open streams (iterable); `link`: the core link (calls and the queue);
   * `committed()`: the page showed new text (the paint clock is asked for a frame).
   * @param {{ streams: Set<Stream>, link: import('../core/link.js').CoreLink, committed: () => void, learners?: Set<import('../core/learners.js').PageLearner>, learning?: import('../core/learners.js').Learning }} parts
   */
  constructor({ streams, link, committed, learners, learning }) {
    this.#streams = streams;
    // What learns where an answer is from the page, and the learning chunk (js/core/learning.js:
    // its Teacher keeps the text around each change while something learns).
    this.#learners = learners || new Set();
    this.#learning = learning || null;
    // The element a learner found its answer in, for the stream that opens next (its earlier
    // changes are replayed into it), and the elements streams showed (the newest 64, weakly
    // held): a text that grows in one is read, not unread.
    this.#expected = null;
    this.#shown = [];
    this.#link = link;
    this.#committed = committed;
    // Observed elements: element → MutationObserver.
    /** @type {Map<Root, { disconnect(): void }>} */
    this.roots = new Map();
    // Open shadow roots found inside observed elements: shadow root → { mo, owner }.
    this.#shadows = new Map();
    this.#lastShadowScan = 0;
    // Per stream: { scope (the element showing it), text (what it showed last), limit (the
    // furthest offset the core can resume a re-render from), mo (the observer of a target given
    // with the stream) }.
    this.#views = new WeakMap();
    // The page changed since the last frame (the paint clock's idle count reads it).
    this.#changed = false;
    // The document-wide search (find.js), once loaded, and the elements that showed a finished
    // answer, which it never claims again.
    this.#find = null;
    this.#retired = null;
  }

  /**
   * Whether anything is observed for `s`: its own target, or observed elements.
   * @param {Stream} s
   */
  watching(s) {
    return !!(s.target || this.roots.size > 0);
  }

  /**
   * @param {Stream} s
   * @returns {View}
   */
  #view(s) {
    let v = this.#views.get(s);
    if (!v) this.#views.set(s, (v = { scope: null, how: null, unsure: false, text: '', limit: 0, mo: null, replaying: false }));
    return v;
  }

  /**
   * The characters the observed elements hold (the conversation before a new answer), read
   * once when a stream opens; NaN for a stream with a target of its own, or nothing observed.
   * @param {Element | null | undefined} target
   */
  heldChars(target) {
    if (target || !this.roots.size) return NaN;
    let n = 0;
    for (const root of [...this.roots.keys(), ...this.#shadows.keys()]) n += (textRoot(root).textContent || '').length;
    return n;
  }

  /** Whether the page changed since this was last asked. */
  takeChanged() {
    const c = this.#changed;
    this.#changed = false;
    return c;
  }

  /**
   * @param {Root} element
   * @returns {boolean}
   */
  observe(element) {
    if (this.roots.has(element) || typeof MutationObserver !== 'function') return false;
    if (element.nodeType === 9 && !this.#find) {
      // The whole document: its search (find.js) is loaded first. Until then the document is
      // held as observed, with nothing to disconnect.
      const pending = { disconnect() {} };
      this.roots.set(element, pending);
      import('./find.js').then(
        (m) => {
          if (!this.#find) {
            this.#find = m;
            this.#retired = new m.Retired();
          }
          if (this.roots.get(element) !== pending) return; // unobserved meanwhile
          this.roots.delete(element);
          this.observe(element);
          // Text an open stream's answer already shows is read now.
          if (this.#streams.size) this.#readDocument(/** @type {Document} */ (element), performance.now());
        },
        () => this.roots.get(element) === pending && this.roots.delete(element),
      );
      return true;
    }
    const mo = new MutationObserver((records) => this.#onMutations(records, element, null));
    mo.observe(element, OBSERVE);
    this.roots.set(element, mo);
    this.#findShadows(element, element);
    return true;
  }

  /** @param {Root} element */
  unobserve(element) {
    const mo = this.roots.get(element);
    if (mo) mo.disconnect();
    this.roots.delete(element);
    for (const [root, w] of this.#shadows) {
      if (w.owner === element) {
        w.mo.disconnect();
        this.#shadows.delete(root);
      }
    }
  }

  disconnect() {
    for (const mo of this.roots.values()) mo.disconnect();
    this.roots.clear();
    for (const w of this.#shadows.values()) w.mo.disconnect();
    this.#shadows.clear();
  }

  /**
   * A stream with a target of its own: that element is observed for it alone.
   * @param {Stream} s
   */
  watchTarget(s) {
    const target = s.target;
    if (!target || typeof MutationObserver !== 'function') return;
    const v = this.#view(s);
    v.mo = new MutationObserver((records) => this.#onMutations(records, target, s));
    v.mo.observe(target, OBSERVE);
  }

  /**
   * `s` is reported: its observer goes, and the element that showed it is retired. Returns that
   * element for the report (`{ selector, how }`, null when none did). A stream discarded
   * (`reported` false: another reading of its answer is opened instead) leaves it free to claim,
   * and still shown by a stream (no answer that grew there is one no stream carried).
   * @param {import('../core/stream.js').Stream} s
   * @param {boolean} [reported]
   * @returns {import('../report.js').ShownIn | null}
   */
  forget(s, reported = true) {
    const v = this.#views.get(s);
    if (v && v.mo) v.mo.disconnect();
    const el = s.target || (v && v.scope);
    /** @type {import('../report.js').ShownIn | null} */
    const element = el ? { selector: selectorOf(el), how: s.target ? 'target' : /** @type {import('../report.js').ShownIn['how']} */ (/** @type {View} */ (v).how) } : null;
    if (el) {
      this.#shown.push(typeof WeakRef === 'function' ? new WeakRef(el) : { deref: () => el });
      if (this.#shown.length > 64) this.#shown.shift();
    }
    if (el && reported && !s.target && this.#retired) this.#retired.add(el);
    this.#views.delete(s);
    return element;
  }

  /**
   * The core lost step with the page's text for `s`: the next change reads the whole text.
   * @param {Stream} s
   */
  outOfStep(s) {
    this.#view(s).text = '';
  }

  /**
   * Why no answer text was found for `s`, when none was; null when it was.
   * @param {Stream} s
   */
  unseen(s) {
    const v = this.#views.get(s);
    if ((v && v.scope) || s.lastCommit) return null;
    const roots = s.target ? [s.target] : [...this.roots.keys(), ...this.#shadows.keys()];
    return roots.length ? whyUnseen(/** @type {Array<Element | ShadowRoot>} */ (roots)) : UNSEEN_NOT_OBSERVED;
  }

  // Observes the open shadow roots in `node` (under the observed element `owner`) not yet
  // observed; text they already show is read as if it had just been added.
  /**
   * @param {Element | ShadowRoot | Document} node
   * @param {Root} owner
   */
  #findShadows(node, owner) {
    eachShadowRoot(/** @type {Element | ShadowRoot} */ (node), (root) => {
      if (this.#shadows.has(root)) return false;
      const mo = new MutationObserver((records) => this.#onMutations(records, root, null));
      mo.observe(root, OBSERVE);
      this.#shadows.set(root, { mo, owner });
      // (Or handed to the learners, while something learns: the answer's first words may be in it.)
      const teacher = this.#learning && this.#learning.teacher;
      if (root.childNodes.length && (this.#streams.size || (teacher && teacher.watching(performance.now())))) {
        this.#onMutations(asRecords([{ target: root, type: 'childList', addedNodes: [...root.childNodes], removedNodes: [] }]), root, null);
      }
      return true;
    });
  }

  // A stream with text but no element yet: shadow roots attached without a DOM change the
  // observers saw (a component that attaches its root late) are looked for, at most every
  // 250 ms.
  /** @param {Stream} s */
  rescanShadows(s) {
    if (s.target || this.#view(s).scope) return;
    const now = performance.now();
    if (now - this.#lastShadowScan < FLUSH_MS) return;
    this.#lastShadowScan = now;
    for (const root of this.roots.keys()) this.#findShadows(root, root);
  }

  /**
   * Reads what the page already shows for a stream opened late, as committed at `t`.
   * @param {Stream} s
   * @param {number} t
   */
  catchUp(s, t) {
    let commits = 0;
    if (s.target) commits = this.#read(s, s.target, t);
    else {
      for (const root of this.roots.keys()) {
        if (root.nodeType === 9) {
          if (this.#find) this.#readDocument(/** @type {Document} */ (root), t);
          continue;
        }
        const all = { target: root, type: 'childList', addedNodes: [...root.childNodes], removedNodes: [] };
        this.#onMutations(asRecords([all]), root, null, t);
      }
    }
    if (commits > 0) this.#committed();
  }

  // The whole document: the text nodes nearest its end (where a new answer is) are tried as if
  // each had just been added.
  /**
   * @param {Document} doc
   * @param {number} t
   */
  #readDocument(doc, t) {
    const adds = /** @type {typeof import('./find.js')} */ (this.#find).lastTexts(doc).map((n) => ({ target: n, type: 'characterData' }));
    this.#onMutations(asRecords(adds), doc, null, t);
  }

  // DOM: find each stream's element, read its text when it changed, time the commit.
  /**
   * @param {MutationRecord[]} records
   * @param {Node} root
   * @param {Stream | null} only
   * @param {number} [at]
   */
  #onMutations(records, root, only, at) {
    try {
      const t = at === undefined ? performance.now() : at;
      // What the learners have yet to read of what the app received comes in first: the page
      // shows what arrived before it.
      if (this.#learning) this.#learning.flush();
      // Elements added here may bring open shadow roots (a chat component's own tree).
      const shadow = this.#shadows.get(/** @type {ShadowRoot} */ (root));
      const owner = this.roots.has(/** @type {Root} */ (root)) ? /** @type {Root} */ (root) : shadow ? shadow.owner : null;
      // Observed as a whole document: the answer's element is searched for around each change,
      // not among an observed element's children.
      const wide = owner !== null && owner.nodeType === 9;
      const added = owner && addedElements(records);
      if (added) for (const el of added) this.#findShadows(el, owner);
      // Something learns, or the user has just asked: the learning chunk reads the change too.
      const teacher = this.#learning && this.#learning.teacher;
      if (teacher && teacher.watching(t)) teacher.teach(records, t);
      let commits = 0;
      /** @type {Element[] | null} */
      let candidates = null;
      for (const s of only ? [only] : this.#streams) {
        if (s.done || (!only && s.target)) continue;
        if (only) {
          if (s.target) commits += this.#read(s, s.target, t, records);
          continue;
        }
        const v = this.#view(s);
        if (v.replaying) continue;
        if (v.scope && !v.scope.isConnected) {
          v.scope = null; // replaced by the app: find the new one
          v.text = '';
        }
        // Claimed in the document on the answer's first characters, the element may only have
        // started like it (a question that begins with the same words, shown as the answer
        // began). Until a later change in it is read, a batch that changes another element that
        // claims the answer, outside it, moves the claim there: the answer grows, the question
        // does not.
        if (v.scope && v.unsure && wide && !changes(records, v.scope)) {
          const find = /** @type {typeof import('./find.js')} */ (this.#find);
          const other = this.#claimAround(s, (candidates = candidates || find.startsOf(records)));
          if (other && !other.contains(v.scope) && !v.scope.contains(other)) {
            v.scope = other;
            v.text = '';
            v.limit = 0;
            commits += this.#read(s, other, t);
            continue;
          }
        }
        if (!v.scope) {
          if (wide) {
            const find = /** @type {typeof import('./find.js')} */ (this.#find);
            v.scope = this.#claimAround(s, (candidates = candidates || find.startsOf(records)));
            v.how = 'document';
            v.unsure = v.scope !== null;
          } else {
            v.scope = this.#claim(s, (candidates = candidates || touched(records, /** @type {Element} */ (root))));
            v.how = 'observed';
          }
          if (v.scope) {
            s.confirm();
            commits += this.#read(s, v.scope, t);
          }
        } else {
          const n = this.#read(s, v.scope, t, records);
          if (n > 0) v.unsure = false;
          commits += n;
        }
      }
      if (commits > 0) this.#committed();
    } catch {
      /* never into the page */
    }
  }

  /**
   * A learner found the answer in `el`: the stream it opens next is shown there. `lead`: the
   * answer's first letters and digits, by which the page's earlier texts of it are found.
   * @param {Element} el
   * @param {string} [lead]
   */
  expect(el, lead = '') {
    this.#expected = el;
    this.#lead = lead;
  }

  /**
   * `s` opened: if a learner expected it, it is shown in the expected element, and the changes
   * that element showed before (`[t, text]`, oldest first) are returned, to be replayed.
   * @param {Stream} s
   * @returns {Array<[number, string]> | null}
   */
  adopt(s) {
    const el = this.#expected;
    if (!el || s.target || !this.#learning || !this.#learning.teacher) return null;
    this.#expected = null;
    const v = this.#view(s);
    // The element the learner saw the answer in, grown as a claim in the document is (find.js
    // `grow`): the message rather than its first paragraph, so that the later ones are in it.
    const find = this.#find;
    const others = this.#shownByOthers(s);
    const retired = this.#retired;
    const scope = find ? find.grow(el, find.ceilingOf(el), (p) => others.some((o) => o === p || p.contains(o)) || (!!retired && retired.within(p))) : el;
    v.scope = scope;
    v.how = 'document';
    // Its changes so far are replayed first (`replay`), in their order.
    v.replaying = true;
    s.confirm();
    // Its earlier texts: the page's texts that began as the answer does, whichever element
    // showed them; else the changes of the element the learner saw it in.
    const teacher = this.#learning.teacher;
    // Since its first arrival (its headers came with it): an earlier answer, or the question,
    // may have begun alike.
    const since = Math.max(Number.isFinite(s.start) ? s.start : -Infinity, s.headersAt);
    const history = this.#lead.length >= 8 ? teacher.answerHistory(this.#lead, since) : [];
    return /** @type {Array<[number, string]>} */ (history.length ? history : teacher.historyOf(el));
  }

  /**
   * Whether a stream shows `el`, or an element in it or around it (open or reported).
   * @param {Element} el
   */
  shows(el) {
    const near = (/** @type {Element | null | undefined} */ x) => x && (x === el || x.contains(el) || el.contains(x));
    for (const s of this.#streams) {
      const v = this.#views.get(s);
      if (near(s.target || (v && v.scope))) return true;
    }
    return this.#shown.some((ref) => near(ref.deref()));
  }

  /**
   * Replays the changes `s`'s element showed before it opened, each at its own time.
   * @param {Stream} s
   * @param {Array<[number, string]>} history
   */
  replay(s, history) {
    const v = this.#view(s);
    v.replaying = false;
    for (const [t, text] of history) {
      if (text === v.text) continue;
      v.text = text;
      const r = this.#link.call((c) => c.render(s.id, text, 0, t), 0, s);
      const n = committedOf(r);
      v.limit = resumeLimitOf(r);
      s.committed(n, t);
    }
    // The frames after the last of them are the live ones: the core is handed them.
    this.#changed = true;
    this.#committed();
  }

  // The first of `candidates` whose text starts like `s`'s answer, and that no other stream
  // shows; null when none does.
  /**
   * @param {Stream} s
   * @param {Element[]} candidates
   */
  #claim(s, candidates) {
    const others = this.#shownByOthers(s);
    for (const el of candidates) {
      if (others.includes(el)) continue;
      const text = leadingText(el);
      if (this.#link.call((c) => c.claims(s.id, text), false, s)) return el;
    }
    return null;
  }

  // Around the changes (find.js): an element whose text starts like `s`'s answer, that no other
  // open stream shows or holds.
  /**
   * @param {Stream} s
   * @param {Element[]} starts
   */
  #claimAround(s, starts) {
    const others = this.#shownByOthers(s);
    // The answer's characters so far: an element holding much more text holds more than it.
    const progress = this.#link.call((c) => c.progress(s.id, performance.now()), '', s);
    const arrived = progress ? JSON.parse(progress).arrived : Infinity;
    return /** @type {typeof import('./find.js')} */ (this.#find).claimAround(starts, (el) => this.#link.call((c) => c.claims(s.id, leadingText(el)), false, s), others, /** @type {import('./find.js').Retired} */ (this.#retired), arrived);
  }

  // The elements the other open streams are shown in.
  /** @param {Stream} s */
  #shownByOthers(s) {
    /** @type {Element[]} */
    const out = [];
    for (const o of this.#streams) {
      if (o === s || o.done) continue;
      const v = this.#views.get(o);
      const shown = o.target || (v && v.scope);
      if (shown) out.push(shown);
    }
    return out;
  }

  // Reads `el`'s change for stream `s`; `records` (when a mutation batch caused it) tell whether
  // `el` changed at all, and whether only nodes were added at its end. One call into the core at
  // most: appends wait in the queue, and a re-render crosses once, from the last checkpoint the
  // core gave (out of step, it returns -1 and the next change sends the whole text).
  /**
   * @param {Stream} s
   * @param {Element} el
   * @param {number} t
   * @param {MutationRecord[]} [records]
   */
  #read(s, el, t, records) {
    const v = this.#view(s);
    const prev = v.text;
    // Nodes added at the end: only they are read (the whole text is not). Nothing in `el`
    // changed: '' as well.
    const added = prev && records ? appendedText(records, el) : null;
    if (added !== null) {
      if (!added) return 0;
      v.text = prev + added;
      this.#link.defer({ s, text: added, from: prev.length, t });
      this.#changed = true;
      return 1; // commits are counted when the queue is flushed; the frame is watched meanwhile
    }
    if (records && !prev && !changes(records, el)) return 0;
    const text = el.textContent || '';
    if (text === prev) return 0;
    v.text = text;
    // Only the changed text crosses into the core: an append from the old end, a re-render
    // from the checkpoint before the first change (see resumeAt in dom.js), no further back than
    // the core can resume from.
    const from = resumeAt(prev, text, v.limit);
    const r = this.#link.call((c) => c.render(s.id, from ? text.slice(from) : text, from, t), 0, s);
    const n = committedOf(r);
    v.limit = resumeLimitOf(r);
    if (n > 0) this.#changed = true;
    s.committed(n, t);
    return n > 0 ? n : 0;
  }
}

// The node whose text stands for `root`'s: a document's is its root element's.
/** @param {Root | ShadowRoot} root */
function textRoot(root) {
  return root.nodeType === 9 ? /** @type {Document} */ (root).documentElement || root : root;
}
