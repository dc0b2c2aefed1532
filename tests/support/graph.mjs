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
