// A page under a strict Content Security Policy (script-src 'self' 'wasm-unsafe-eval', no inline
// script, Trusted Types required with no policy allowed): tokenpaint must load its wasm, profile a
// stream and report, without a single violation. The app renders with text nodes only.
import init, { Profiler } from '/js/index.js';
import { deltas } from '/tests/pages/deltas.js';

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
for await (const { content } of deltas(res.body)) out.append(content);
window.report = await done;
profiler.print();
