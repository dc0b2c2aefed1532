// The pace of a stream that a re-rendering page cannot keep up with, on this machine. A test of
// a slow page needs the page to fall behind its stream; how fast the page renders depends on the
// machine (the same 205-line code answer fell seconds behind a 5 ms pace on one machine and kept
// up within a frame on a faster one). The page times one render of the whole answer
// (window.renderCost, tests/pages/renderers.jsx), and the stream's deltas come `share` of that
// apart, so that the last `1 - share` of the answer's deltas each cost the page more than the
// time to the next one. Never slower than `slowest` ms a delta: a slow machine keeps the pace the
// test was written for.
import { codeAnswer } from '../../scripts/sim.mjs';

// What one render of a `lines`-line code answer by `kind` costs the page (ms).
const renderCost = (page, kind, lines) => page.evaluate(([k, text]) => window.renderCost(k, text), [kind, codeAnswer(lines)]);

export async function paceBehind(page, kind, lines, { share = 0.15, slowest = 5, fastest = 0.5 } = {}) {
  const cost = await renderCost(page, kind, lines);
  const ms = Math.min(slowest, Math.max(fastest, cost * share));
  return { tokenMs: Math.round(ms * 100) / 100, cost };
}

/**
 * The lines of a code answer whose whole render costs this machine at least `costMs` (at least
 * `lines`, at most `most`): a render that grows with the answer is named when its last deltas
 * cost 8 ms or more, and a fast machine renders the test's answer in less.
 */
export async function linesCosting(page, kind, lines, costMs, most = 4 * lines) {
  const cost = await renderCost(page, kind, lines);
  return { lines: Math.min(most, Math.max(lines, Math.ceil((lines * costMs) / Math.max(cost, 0.1)))), cost };
}
