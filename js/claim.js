// Claiming: which element shows a stream's answer, and reading what changed in it. A change in
// an observed element (or in an open shadow root found in it) is matched against each open
// stream: the first element whose text starts like the answer claims the stream (dom.js), and
// each later change is read (only the appended part when the page appends) and queued for the
// core with its time.

import { touched, changes, resumeAt, appendedText, leadingText } from './dom.js';
import { eachShadowRoot, addedElements } from './shadow.js';
import { FLUSH_MS } from './batch.js';

export const OBSERVE = { childList: true, subtree: true, characterData: true };

// Observes the open shadow roots in `node` (under the observed element `owner`) not yet
// observed; text they already show is read as if it had just been added.
export function findShadows(p, node, owner) {
  eachShadowRoot(node, (root) => {
    if (p._shadows.has(root)) return false;
    const mo = new MutationObserver((records) => p._onMutations(records, root, null));
    mo.observe(root, OBSERVE);
    p._shadows.set(root, { mo, owner });
    if (root.childNodes.length && p._streams.size) {
      p._onMutations([{ target: root, type: 'childList', addedNodes: [...root.childNodes], removedNodes: [] }], root, null);
    }
    return true;
  });
}

// A stream with text but no element yet: shadow roots attached without a DOM change the
// observers saw (a component that attaches its root late) are looked for, at most every
// 250 ms.
export function rescanShadows(p) {
  const now = performance.now();
  if (now - p._lastShadowScan < FLUSH_MS) return;
  p._lastShadowScan = now;
  for (const root of p._roots.keys()) p._findShadows(root, root);
}

// Reads what the page already shows for a stream opened late.
export function catchUp(p, s) {
  try {
    const t = performance.now();
    p._call((c) => c.caught_up(s.id, t), undefined, s);
    let commits = 0;
    if (s.target) commits = p._read(s, s.target, t);
    else {
      for (const root of p._roots.keys()) {
        const all = { target: root, type: 'childList', addedNodes: [...root.childNodes], removedNodes: [] };
        p._onMutations([all], root, null, t);
      }
    }
    if (commits > 0) p._paint.request();
    if (s.ended) p._checkSettled(s);
  } catch {
    /* never into the page */
  }
}

// DOM: find each stream's element, read its text when it changed, time the commit.
export function onMutations(p, records, root, only, at) {
  try {
    const t = at === undefined ? performance.now() : at;
    // Elements added here may bring open shadow roots (a chat component's own tree).
    const owner = p._roots.has(root) ? root : p._shadows.has(root) ? p._shadows.get(root).owner : null;
    const added = owner && addedElements(records);
    if (added) for (const el of added) p._findShadows(el, owner);
    let commits = 0;
    let candidates = null;
    for (const s of only ? [only] : p._streams) {
      if (s.done || (!only && s.target)) continue;
      if (only) {
        commits += p._read(s, s.target, t, records);
        continue;
      }
      if (s.scope && !s.scope.isConnected) {
        s.scope = null; // replaced by the app: find the new one
        s.prevText = '';
      }
      if (!s.scope) {
        candidates = candidates || touched(records, root);
        for (const el of candidates) {
          if (p._claimedByOther(el, s)) continue;
          const text = leadingText(el);
          if (p._call((c) => c.claims(s.id, text), false, s)) {
            s.scope = el;
            break;
          }
        }
        if (s.scope) commits += p._read(s, s.scope, t);
      } else {
        commits += p._read(s, s.scope, t, records);
      }
    }
    if (commits > 0) p._paint.request();
  } catch {
    /* never into the page */
  }
}

export function claimedByOther(p, el, s) {
  for (const o of p._streams) if (o !== s && !o.done && (o.scope === el || o.target === el)) return true;
  return false;
}

// Reads `el`'s change for stream `s`; `records` (when a mutation batch caused it) tell whether
// `el` changed at all, and whether only nodes were added at its end.
export function read(p, s, el, t, records) {
  const prev = s.prevText;
  // Nodes added at the end: only they are read (the whole text is not). Nothing in `el`
  // changed: '' as well.
  const added = prev && records ? appendedText(records, el) : null;
  if (added !== null) {
    if (!added) return 0;
    s.prevText = prev + added;
    p._defer({ s, text: added, from: prev.length, t });
    p._changed = true;
    return 1; // commits are counted when the queue is flushed; the frame is watched meanwhile
  }
  if (records && !prev && !changes(records, el)) return 0;
  const text = el.textContent || '';
  if (text === prev) return 0;
  s.prevText = text;
  // Only the changed text crosses into the core: an append from the old end, a re-render
  // from the checkpoint before the first change (see resumeAt in dom.js).
  const from = resumeAt(prev, text, p._call((c) => c.resume_limit(s.id), 0, s));
  let n = p._call((c) => c.rendered(s.id, from ? text.slice(from) : text, from, t), 0, s);
  if (n < 0) n = p._call((c) => c.rendered(s.id, text, 0, t), 0, s);
  if (n > 0) {
    p._changed = true;
    s.lastCommit = t;
    if (s.ended) p._armSettle(s);
  }
  return n;
}
