// Finding and reading the element that shows a stream's answer.
//
// `profiler.observe(container)` watches the element that holds the conversation. A stream's
// answer is rendered into one child of it (a message bubble): the first child touched by a DOM
// change after the answer began arriving whose text starts like the answer *claims* the stream.
// If the page renders text straight into the container, the container itself is the answer.
// `track(response, { target })` names the element and skips the search.

/** The child of `root` that contains `node` (or `root` itself when `node` is a text child). */
export function topOf(node, root) {
  let n = node;
  while (n && n.parentNode !== root) {
    if (n === root) return root;
    n = n.parentNode;
  }
  if (!n) return null;
  return n.nodeType === 1 ? n : root;
}

/** The distinct candidates touched by `records`, last touched first. */
export function touched(records, root) {
  const seen = new Set();
  for (const r of records) {
    if (r.target === root && r.type === 'childList') {
      for (const n of r.addedNodes) seen.add(n.nodeType === 1 ? n : root);
      if (r.removedNodes.length) seen.add(root);
    } else {
      const top = topOf(r.target, root);
      if (top) seen.add(top);
    }
  }
  return [...seen].reverse();
}

/** Whether any record changed something inside `el`. */
export function changes(records, el) {
  for (const r of records) {
    if (r.target === el || el.contains(r.target)) return true;
  }
  return false;
}
