// Loaded by import() when the whole document is observed, and only then (watch.js): a page
// that observes its own container pays nothing for it.
//
// Finding the answer's element in a whole document (`profiler.observe()` with no element, or
// `observe(document)`): a page whose code nobody changed has no container to name. Around each
// DOM change, the nearest element whose text starts like the stream's answer is found (watch.js
// asks the core), then grown to the largest element that holds nothing before it: the message
// bubble rather than its first paragraph, so that the answer's later paragraphs are inside it.
// Growth stops at anything that shows other text first (a role label, the user's question, an
// earlier message), at an element with much more text than has arrived (a newest-first list), at
// a text field or an editable region (where the user types the prompt), at an element holding an
// earlier answer, and at the body or the shadow root.

import { leadingText } from './dom.js';

// Where a change is never the answer: the head, scripts, styles, templates, form fields.
const NEVER = 'head, script, style, noscript, template, title, textarea, input, select, option';
// Text entry: an element holding one is a form around the answer, not the answer.
const FIELDS = 'textarea, [contenteditable], input:not([type]), input[type=text], input[type=search]';

/**
 * The elements where `records` changed something, last changed first, once each.
 * @param {MutationRecord[]} records
 * @returns {Element[]}
 */
export function startsOf(records) {
  /** @type {Set<Node | null>} */
  const seen = new Set();
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    const target = r.target;
    if (r.type === 'childList' && r.addedNodes && r.addedNodes.length) {
      const added = r.addedNodes;
      for (let j = added.length - 1; j >= 0; j--) seen.add(added[j].nodeType === 1 ? added[j] : target);
    } else {
      seen.add(target.nodeType === 1 ? target : target.parentNode);
    }
  }
  const out = [];
  for (const el of seen) if (el && el.nodeType === 1 && el.isConnected && !excluded(/** @type {HTMLElement} */ (el))) out.push(/** @type {Element} */ (el));
  return out;
}

// The user's own text, or no text at all: never the answer.
/** @param {HTMLElement} el */
function excluded(el) {
  return el.isContentEditable === true || (typeof el.closest === 'function' && el.closest(NEVER) !== null);
}

/**
 * Around each of `starts` (the changed elements): the nearest element (the change's own, or an
 * ancestor up to the body or its shadow root) whose text `claims` (starts like the answer),
 * grown to the largest one that shows nothing before it (`grow`) and holds little more text than
 * the `arrived` characters (not a list whose older messages come after); null when none does.
 * Never one of `others` (elements showing other open answers) or of `retired`, nor an element
 * holding one.
 * @param {Element[]} starts
 * @param {(el: Element) => boolean} claims
 * @param {Element[]} others
 * @param {Retired} retired
 * @param {number} [arrived]
 * @returns {Element | null}
 */
export function claimAround(starts, claims, others, retired, arrived = Infinity) {
  const blocked = (/** @type {Element} */ el) => others.includes(el) || retired.has(el) || retired.within(el) || others.some((o) => o !== el && el.contains(o));
  // What an element may show besides the answer: the one a change is found in, a few characters
  // (a typing indicator, a delta shown before it was read); an element it grows to, a label or a
  // button more. And the difference of UTF-16 units and characters.
  const tight = arrived + 16 + arrived / 10;
  const room = arrived + 64 + arrived / 4;
  const tried = new Set();
  // Of the elements that claim, the one whose text goes least past what has arrived: a page shows
  // no more of the answer than it has read, and a question that starts with the answer's first
  // words goes on past them.
  /** @type {[Element, Node] | null} */
  let best = null;
  let over = Infinity;
  for (const start of starts) {
    const ceiling = ceilingOf(start);
    for (let el = start; el && el !== ceiling && el.nodeType === 1; el = /** @type {Element} */ (el.parentNode)) {
      if (tried.has(el)) break; // and its ancestors were tried from an earlier change
      tried.add(el);
      // Much more text than has arrived: a finished answer, a list (nor can an ancestor be it).
      const size = (el.textContent || '').length;
      if (blocked(el) || size > room) break;
      if (claims(el)) {
        // Text that starts like the answer but goes well past it: an ancestor holds it too.
        if (size <= tight && Math.max(0, size - arrived) < over) {
          over = Math.max(0, size - arrived);
          best = [el, ceiling];
        }
        break;
      }
    }
    if (best && over === 0) break;
  }
  return best && grow(best[0], best[1], (p) => blocked(p) || (p.textContent || '').length > room);
}

/**
 * Where the search around `node` stops: its shadow root, or its document's body.
 * @param {Node} node
 * @returns {Node}
 */
export function ceilingOf(node) {
  const root = typeof node.getRootNode === 'function' ? node.getRootNode() : null;
  if (root && root.nodeType === 11) return root;
  const doc = node.ownerDocument || document;
  return doc.body || doc.documentElement;
}

/**
 * The largest ancestor of `el` (below `ceiling`) that shows nothing before `el`'s text, nor text
 * after it in an element of its kind, holds no text field, and is not `blocked` (it holds
 * another answer, or too much text); `el` itself when its parent fails.
 * @param {Element} el
 * @param {Node} ceiling
 * @param {(el: Element) => boolean} blocked
 */
export function grow(el, ceiling, blocked) {
  let best = el;
  for (let p = /** @type {Element | null} */ (el.parentNode); p && p !== ceiling && p.nodeType === 1; p = /** @type {Element | null} */ (p.parentNode)) {
    if (textBefore(p, best) || sameKindAfter(p, best) || blocked(p) || p.querySelector(FIELDS) !== null) break;
    best = p;
  }
  return best;
}

// Whether `parent` shows text before its child `child`.
/**
 * @param {Node} parent
 * @param {Node} child
 */
function textBefore(parent, child) {
  for (let n = parent.firstChild; n && n !== child; n = n.nextSibling) {
    if (hasText(n)) return true;
  }
  return false;
}

// Whether `parent` shows text after `child` in an element of `child`'s kind (tag): the next
// message of a list, a question after its answer. A paragraph of the answer is not yet there
// when the answer is claimed.
/**
 * @param {Node} parent
 * @param {Element} child
 */
function sameKindAfter(parent, child) {
  for (let n = child.nextSibling; n; n = n.nextSibling) {
    if (n.nodeType === 1 && /** @type {Element} */ (n).localName === child.localName && hasText(n)) return true;
  }
  return false;
}

// Whether `node` shows any non-blank text (stops at the first).
/** @param {Node} node */
function hasText(node) {
  if (node.nodeType === 3) return /\S/.test(/** @type {Text} */ (node).data);
  if (node.nodeType !== 1 || /** @type {Element} */ (node).closest(NEVER)) return false;
  const walk = (node.ownerDocument || document).createTreeWalker(node, 4 /* SHOW_TEXT */);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) if (/\S/.test(/** @type {Text} */ (t).data)) return true;
  return false;
}

/**
 * The last `max` non-blank text nodes of `doc`'s body, in document order: where a stream
 * opened late looks for text the page already shows (a new answer is near the end).
 * @param {Document} doc
 * @param {number} [max]
 * @returns {Text[]}
 */
export function lastTexts(doc, max = 200) {
  const body = doc.body;
  if (!body) return [];
  const walk = doc.createTreeWalker(body, 4 /* SHOW_TEXT */);
  const out = [];
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const t = /** @type {Text} */ (node);
    if (/\S/.test(t.data)) {
      out.push(t);
      if (out.length > max) out.shift();
    }
  }
  return out;
}

/**
 * Elements that showed a finished answer. `has(el)`: `el` showed one and still starts as it did
 * then (a page that regenerates an answer in place rewrites it, and may be claimed again);
 * `within(el)`: `el` holds one. The last 64 are kept, weakly where the engine can.
 */
export class Retired {
  /** @type {WeakMap<Element, string>} */
  #lead = new WeakMap();
  /** @type {Array<{ deref(): Element | undefined }>} */
  #list = [];

  /** @param {Element} el */
  add(el) {
    this.#lead.set(el, lead(el));
    this.#list.push(typeof WeakRef === 'function' ? new WeakRef(el) : { deref: () => el });
    if (this.#list.length > 64) this.#list.shift();
  }

  /** @param {Element} el */
  has(el) {
    const was = this.#lead.get(el);
    return was !== undefined && was === lead(el);
  }

  /** @param {Element} el */
  within(el) {
    for (const ref of this.#list) {
      const r = ref.deref();
      if (r && r !== el && r.isConnected && el.contains(r)) return true;
    }
    return false;
  }
}

// The first characters of `el`'s text.
/** @param {Element} el */
function lead(el) {
  return (el.textContent || '').slice(0, 64);
}
