// What the generators of docs tables share (scripts/catalog.mjs, scripts/options.mjs).

/**
 * `doc` with the table that starts with `head` (its header and rule lines) replaced by `table`,
 * up to the blank line after it; `what` names the table in the error when `doc` has none.
 */
export function replaceTable(doc, head, table, what) {
  const at = doc.indexOf(head);
  if (at < 0) throw new Error(`no ${what} table`);
  const end = doc.indexOf('\n\n', at);
  return doc.slice(0, at) + table + (end < 0 ? '' : doc.slice(end + 1));
}
