// A page under a strict Content Security Policy (script-src 'self' 'wasm-unsafe-eval', no inline
// script, Trusted Types required with no policy allowed): tokenpaint must load its wasm, profile a
// stream and report, without a single violation. The app renders with text nodes only.
import init, { Profiler } from '/js/index.js';

window.violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.violations.push(`${e.violatedDirective}: ${e.blockedURI}`));

await init();
const chat = document.getElementById('chat');
const profiler = new Profiler({ devtools: true });
profiler.observe(chat);
// With ?overlay: the development overlay too (tokenpaint/overlay), under the same policy.
if (new URLSearchParams(location.search).has('overlay')) {
  window.chatStyle = getComputedStyle(chat).cssText || JSON.stringify([getComputedStyle(chat).color, getComputedStyle(chat).font]);
  const { overlay } = await import('/js/overlay.js');
  window.panel = overlay(profiler);
}
const done = new Promise((resolve) => profiler.onReport(resolve));
const out = document.createElement('div');
chat.append(out);
const res = await profiler.fetch('/v1/chat/completions?ttft_ms=30&token_ms=10&tokens=20', { method: 'POST', body: '{}' });
const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
let buf = '';
for (;;) {
  const { value, done: end } = await reader.read();
  if (end) break;
  buf += value;
  const lines = buf.split('\n');
  buf = lines.pop();
  for (const line of lines) {
    const piece = line.startsWith('data: {') ? JSON.parse(line.slice(6)).choices?.[0]?.delta?.content : null;
    if (piece) out.append(piece);
  }
}
window.report = await done;
profiler.print();
