// Open shadow roots inside an observed element: chat widgets are often web components, whose
// text lives in a shadow tree that a MutationObserver on the page never sees. Each open shadow
// root found inside an observed element (nested ones too) gets an observer of its own and is
// searched like light DOM. Closed shadow roots and cross-origin iframes cannot be read: when no
// answer text was found, `whyUnseen` says which of them is the likely reason.

import { UNSEEN_CLOSED_SHADOW_ROOT, UNSEEN_CROSS_ORIGIN_IFRAME, UNSEEN_NOT_FOUND } from '../words.js';

/**
 * Calls `found(shadowRoot)` for every open shadow root in `node`'s tree, nested ones included.
 * @param {Element | ShadowRoot} node
 * @param {(root: ShadowRoot) => boolean | void} found false: already known, not searched again
 */
export function eachShadowRoot(node, found) {
  if (!node || typeof document === 'undefined') return;
  const start = node.nodeType === 1 ? /** @type {Element} */ (node) : null;
  if (start && start.shadowRoot) visit(start.shadowRoot, found);
  if (!node.firstElementChild && !(node.nodeType === 11 && node.childNodes.length)) return;
  const walker = document.createTreeWalker(node, 1 /* NodeFilter.SHOW_ELEMENT */);
  for (let el = walker.nextNode(); el; el = walker.nextNode()) {
    const root = /** @type {Element} */ (el).shadowRoot;
    if (root) visit(root, found);
  }
}

/**
 * @param {ShadowRoot} root
 * @param {(root: ShadowRoot) => boolean | void} found
 */
function visit(root, found) {
  if (found(root) === false) return; // already known: its own observer covers it
  eachShadowRoot(root, found);
}

/**
 * Added element nodes in `records` (only they can bring new shadow roots).
 * @param {MutationRecord[]} records
 */
export function addedElements(records) {
  /** @type {Element[] | null} */
  let out = null;
  // Indexed loops: this runs for every mutation record, and a NodeList iterator per record costs
  // more than the check itself when most records add one text node (a streamed token).
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (r.type !== 'childList') continue;
    const added = r.addedNodes;
    for (let j = 0; j < added.length; j++) if (added[j].nodeType === 1) (out || (out = [])).push(/** @type {Element} */ (added[j]));
  }
  return out;
}

/**
 * Why no answer text was found under `roots` (observed elements and the open shadow roots found
 * in them): `cross-origin-iframe` when an iframe there cannot be read, `closed-shadow-root` when
 * a custom element there has no open shadow root and no text of its own (its content is most
 * likely in a closed shadow root), else `not-found`.
 */
export function whyUnseen(/** @type {Iterable<Element | ShadowRoot>} */ roots) {
  let closed = false;
  const defined = typeof customElements !== 'undefined' ? (/** @type {string} */ name) => customElements.get(name) !== undefined : () => false;
  for (const root of roots) {
    const walker = document.createTreeWalker(root, 1);
    // The observed element itself first (it may be the component), then everything inside.
    for (let node = root.nodeType === 1 ? root : walker.nextNode(); node; node = walker.nextNode()) {
      const el = /** @type {Element} */ (node);
      const name = el.localName;
      if (name === 'iframe' || name === 'frame') {
        let readable = false;
        try {
          readable = /** @type {HTMLIFrameElement} */ (el).contentDocument !== null;
        } catch {
          readable = false;
        }
        if (!readable) return UNSEEN_CROSS_ORIGIN_IFRAME;
      } else if (!closed && name.includes('-') && !el.shadowRoot && !(el.textContent || '').trim()) {
        closed = defined(name);
      }
    }
  }
  return closed ? UNSEEN_CLOSED_SHADOW_ROOT : UNSEEN_NOT_FOUND;
}
