// Finding and reading the element that shows a stream's answer.
//
// `profiler.observe(container)` watches the element that holds the conversation. A stream's
// answer is rendered into one child of it (a message bubble): the first child touched by a DOM
// change after the answer began arriving whose text starts like the answer *claims* the stream.
// If the page renders text straight into the container, the container itself is the answer.
// `track(response, { target })` names the element and skips the search.

/**
 * The child of `root` that contains `node` (or `root` itself when `node` is a text child).
 * @param {Node} node
 * @param {Element} root
 * @returns {Element | null}
 */
export function topOf(node, root) {
  /** @type {Node | null} */
  let n = node;
  while (n && n.parentNode !== root) {
    if (n === root) return root;
    n = n.parentNode;
  }
  if (!n) return null;
  return n.nodeType === 1 ? /** @type {Element} */ (n) : root;
}

/**
 * The distinct candidates touched by `records`, last touched first.
 * @param {MutationRecord[]} records
 * @param {Element} root
 */
export function touched(records, root) {
  /** @type {Set<Element>} */
  const seen = new Set();
  for (const r of records) {
    if (r.target === root && r.type === 'childList') {
      for (const n of r.addedNodes) seen.add(n.nodeType === 1 ? /** @type {Element} */ (n) : root);
      if (r.removedNodes.length) seen.add(root);
    } else {
      const top = topOf(r.target, root);
      if (top) seen.add(top);
    }
  }
  return [...seen].reverse();
}

/**
 * Whether any record changed something inside `el`.
 * @param {MutationRecord[]} records
 * @param {Node} el
 */
export function changes(records, el) {
  for (const r of records) {
    if (r.target === el || el.contains(r.target)) return true;
  }
  return false;
}

/**
 * The text appended to `el` by `records`, when all they did inside it was add at its end (what a
 * page appending each delta does, into `el` or into its last paragraph, or what React does when
 * it sets the grown text of the last text node); null otherwise (then the whole text is read).
 * Reading the added text costs what was added, where `el.textContent` costs the whole answer.
 *
 * Each record must add nodes, remove none, at the end of an element that is still on `el`'s
 * last-child path (with no removals in the batch, it was then too), or change a text node on that
 * path whose text now starts with what it held before the batch (the first record's old value).
 * A node added in this batch is read whole, so later records inside it are already counted.
 * @param {MutationRecord[]} records
 * @param {Node} el
 */
export function appendedText(records, el) {
  let out = '';
  /** @type {Node[] | null} */
  let added = null;
  /** @type {Node | null} */
  let grown = null;
  for (const r of records) {
    const target = r.target;
    if (target !== el && !el.contains(target)) continue;
    if (added && added.some((n) => n.contains(target))) continue;
    if (r.type === 'characterData') {
      if (grown === target) continue; // its first record's old value is the one compared
      const old = r.oldValue;
      if (grown !== null || typeof old !== 'string' || !onLastPath(target, el)) return null;
      const now = /** @type {CharacterData} */ (target).data;
      if (now.length < old.length || !now.startsWith(old)) return null;
      grown = target;
      out += now.slice(old.length);
      continue;
    }
    if (r.type !== 'childList' || r.removedNodes.length || r.nextSibling !== null) return null;
    if (!onLastPath(target, el)) return null;
    const nodes = r.addedNodes;
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      // Comments and processing instructions are not part of an element's text content.
      if (n.nodeType === 3 || n.nodeType === 1) {
        out += n.nodeType === 3 ? /** @type {Text} */ (n).data : n.textContent;
        (added || (added = [])).push(n);
      }
    }
  }
  return out;
}

// Whether `node` (inside `el`) ends `el`: each node from it up to `el` is its parent's last child.
/**
 * @param {Node} node
 * @param {Node} el
 */
function onLastPath(node, el) {
  for (let n = node; n !== el; n = /** @type {Node} */ (n.parentNode)) {
    if (/** @type {Node} */ (n.parentNode).lastChild !== n) return false;
  }
  return true;
}

// Enough of an element's leading text to tell whether it starts like an answer: the core looks
// at its first 64 visible characters; whitespace and markup between them are read too.
const LEAD = 1024;

/**
 * The text at the start of `el` (its first LEAD UTF-16 units or so, in textContent's order):
 * what claiming needs, at a cost that does not grow with the element. An element that shows
 * something other than the answer is tried on each of its changes, and reading its whole
 * `textContent` every time would cost the square of its length.
 * @param {Node} el
 */
export function leadingText(el) {
  const doc = el.ownerDocument || document;
  const walk = doc.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
  let out = '';
  for (let n = walk.nextNode(); n && out.length < LEAD; n = walk.nextNode()) out += /** @type {Text} */ (n).data;
  return out.length > LEAD ? out.slice(0, LEAD) : out;
}

/** The core keeps its matching state every CHECKPOINT UTF-16 units of rendered text. */
const CHECKPOINT = 64;

/**
 * Where to resume matching when an element's text changed from `prev` to `text`: the old length
 * when text was appended, else the checkpoint at or before the first difference (never inside a
 * surrogate pair), and not past `limit`, the core's last checkpoint. Comparisons run on native
 * string slices, so finding an unchanged prefix costs far less than matching it again.
 * @param {string} prev
 * @param {string} text
 * @param {number} [limit]
 */
export function resumeAt(prev, text, limit = Infinity) {
  if (!prev) return 0;
  if (text.length > prev.length && text.startsWith(prev)) return prev.length;
  const n = Math.min(prev.length, text.length);
  let i = 0;
  for (const step of [4096, 256, 16, 1]) {
    while (i + step <= n && prev.slice(i, i + step) === text.slice(i, i + step)) i += step;
  }
  let from = Math.min(i, limit);
  from -= from % CHECKPOINT;
  while (from > 0 && isLowSurrogate(text.charCodeAt(from))) from -= CHECKPOINT;
  return from;
}

/** @param {number} code */
function isLowSurrogate(code) {
  return code >= 0xdc00 && code <= 0xdfff;
}

const escape =
  typeof CSS !== 'undefined' && typeof CSS.escape === 'function' ? (/** @type {string} */ s) => CSS.escape(s) : (/** @type {string} */ s) => s.replace(/[^\w-]/g, (c) => `\\${c}`);

/**
 * A short selector for `el`, for the report: up to four steps up (an id ends it, but for a shadow
 * tree's host), each `tag#id` or `tag.class.class` with `:nth-of-type(k)` among same-tag
 * siblings; a shadow boundary is written ` >>> ` after its host.
 * @param {Node} el
 */
export function selectorOf(el) {
  const parts = [];
  /** @type {Node | null} */
  let node = el;
  for (let steps = 0; node && steps < 4; ) {
    if (node.nodeType === 11 && /** @type {ShadowRoot} */ (node).host) {
      parts.push('>>>');
      node = /** @type {ShadowRoot} */ (node).host;
      continue;
    }
    if (node.nodeType !== 1) break;
    const n = /** @type {Element} */ (node);
    let part = n.localName;
    if (n.id) {
      // Unique in its tree: the path goes on only from a shadow root's host.
      parts.push(`${part}#${escape(n.id)}`);
      const root = n.getRootNode();
      if (root.nodeType !== 11 || !(/** @type {ShadowRoot} */ (root).host)) break;
      steps++;
      node = root;
      continue;
    }
    for (const c of [...n.classList].slice(0, 2)) part += `.${escape(c)}`;
    const parent = /** @type {ParentNode | null} */ (n.parentNode);
    if (parent && parent.children) {
      let k = 0;
      let same = 0;
      for (const sib of parent.children) {
        if (sib.localName !== n.localName) continue;
        same++;
        if (sib === n) k = same;
      }
      if (same > 1) part += `:nth-of-type(${k})`;
    }
    parts.push(part);
    steps++;
    node = /** @type {Node | null} */ (parent);
  }
  return parts.reverse().join(' > ').replace(/ > >>> > /g, ' >>> ');
}
