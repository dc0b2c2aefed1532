// A chat page that draws formulas with the real KaTeX (0.16, from npm), as remark-math and
// rehype-katex do: each whole formula (`$…$`, `$$…$$`) is rendered by KaTeX, an unclosed one is
// shown as text, and the whole message is rendered again with each delta. The page's own truth:
// the after-paint mark of each change (tests/pages/deltas.js).
import init, { Profiler } from '/js/index.js';
import katex from '/vendor/katex.mjs';
import { deltas, paintTruth } from '/tests/pages/deltas.js';

await init();

function render(el, text) {
  el.replaceChildren();
  const re = /\$\$([^$]+)\$\$|\$([^$\n]+)\$/g;
  let at = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    el.append(text.slice(at, m.index));
    const math = document.createElement('span');
    math.innerHTML = katex.renderToString(m[1] ?? m[2], { displayMode: m[1] !== undefined, throwOnError: false });
    el.append(math);
    at = re.lastIndex;
  }
  el.append(text.slice(at));
}

window.runMath = async ({ query = 'content=math&ttft_ms=30&token_ms=15' } = {}) => {
  const chat = document.getElementById('chat');
  chat.replaceChildren();
  const profiler = new Profiler();
  profiler.observe(chat);
  const report = new Promise((resolve) => profiler.onReport(resolve));
  const out = document.createElement('div');
  chat.append(out);
  const painted = paintTruth();
  const res = await profiler.fetch(`/v1/chat/completions?${query}`, { method: 'POST', body: '{}' });
  let text = '';
  for await (const { content, t: got } of deltas(res.body)) {
    text += content;
    render(out, text);
    painted.mark(got);
  }
  const r = await report;
  profiler.disconnect();
  await new Promise((ok) => setTimeout(ok, 50));
  return { report: r, lastPaint: painted.last() - r.startTime, lastFrame: painted.lastFrame() - r.startTime, longestWait: painted.quantile(1), drawn: out.querySelectorAll('.katex').length };
};
window.mathReady = true;
