// Graphs of the repository's modules (tests/repo/cycles.test.mjs, tests/repo/lab.test.mjs).

/** The cycles of a graph (Map of node to neighbours), each as a path that comes back to its start. */
export function cycles(graph) {
  const out = [];
  const state = new Map();
  const stack = [];
  const visit = (n) => {
    state.set(n, 1);
    stack.push(n);
    for (const m of graph.get(n) || []) {
      if (state.get(m) === 1) out.push([...stack.slice(stack.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return out;
}

/**
 * The modules `source` imports (static, re-export or dynamic `import()`) whose specifier matches
 * `spec` (a regex source, its first group the part returned), comments taken out first (JSDoc
 * types name modules without importing them). By default: relative imports, whole.
 */
export function importsOf(source, spec = '(\\.{1,2}\\/[^\'"]+)') {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found = new Set();
  const re = new RegExp(`(?:\\bimport\\s*(?:[\\w*{}\\s,$]+\\bfrom\\s*)?|\\bexport\\s*[\\w*{}\\s,$]*\\bfrom\\s*|\\bimport\\s*\\(\\s*)(['"])${spec}\\1`, 'g');
  for (const m of code.matchAll(re)) found.add(m[2]);
  return [...found];
}
