// The lab's scenarios: each a preset of the knobs, and the cause its diagnosis should name; the
// buttons that pick one, and the knobs read back.

import { $, lab, state } from '/www/lab.js';

export const LONG_PROMPT = 'Summarise this document. ' + 'The quarterly report covers revenue, costs, hiring and risks in detail. '.repeat(90);
const BASE = { ttft: 250, tokenMs: 20, jitter: 0, tokens: 80, reasoning: 0, stallEvery: 0, stallMs: 0, prefillPerToken: 0, slots: 0, format: 'openai', metrics: true, serverTiming: false, serverHold: false, empty: false, via: 'direct', coalesce: 0, flushMs: 0, gzip: false, render: 'append', throttle: 50, cps: 60, renderCost: 0, growCost: 0, burstMs: 0, content: 'words' };
export const SCENARIOS = {
  healthy: { label: 'Healthy', expect: 'healthy', knobs: {} },
  queueing: { label: 'Queueing under load', expect: 'queue-bound', knobs: { slots: 1, tokens: 40 }, load: { n: 4, c: 4 } },
  prefill: { label: 'Slow prefill (long prompt)', expect: 'prefill-bound', knobs: { ttft: 100, prefillPerToken: 1.5, tokens: 50 }, prompt: LONG_PROMPT },
  decode: { label: 'Slow, jittery decode', expect: 'decode-bound', knobs: { tokenMs: 90, jitter: 40, tokens: 40 } },
  proxy: { label: 'Proxy buffering (nginx)', expect: 'intermediary-buffered', knobs: { via: 'nginx-buffered', tokens: 100 }, needs: 'nginx' },
  gzip: { label: 'Gzip buffering', expect: 'intermediary-buffered', knobs: { gzip: true, tokens: 100 } },
  bursty: { label: 'Provider streams in bursts', expect: 'provider-bursts', knobs: { burstMs: 450, tokenMs: 8, tokens: 400 } },
  serverHold: { label: 'Server holds its stream', expect: 'server-buffered', knobs: { serverHold: true, tokens: 60 } },
  empty: { label: 'Empty answer (prompt over context)', expect: 'insufficient-evidence', knobs: { empty: true } },
  markdown: { label: 'Slow markdown render', expect: 'client-render-bound', knobs: { render: 'markdown', renderCost: 40, tokens: 60 } },
  growing: { label: 'Re-render that grows with the answer', expect: 'client-render-growing', knobs: { render: 'markdown', growCost: 5, tokens: 380, tokenMs: 10 } },
  // Heavy enough that a fast machine falls behind too: 200 lines, a delta every 2 ms.
  highlighter: { label: 'Heavy syntax highlighter', expect: 'page-stall', knobs: { render: 'highlight', content: 'code', tokens: 1800, tokenMs: 2 } },
  conversation: { label: 'Long conversation re-rendered', expect: 'conversation-weight', knobs: { render: 'conversation', growCost: 3, tokens: 200, tokenMs: 10 }, turns: 7 },
  throttled: { label: 'Throttled UI', expect: 'client-render-bound', knobs: { render: 'throttled', throttle: 300 } },
  buffered: { label: 'Client buffers whole answer', expect: 'client-buffers-whole-answer', knobs: { render: 'buffered' } },
  typing: { label: 'Typing slower than the stream', expect: 'client-smoothing', knobs: { render: 'typewriter', cps: 50, tokenMs: 20, tokens: 60 } },
  reasoning: { label: 'Reasoning model', expect: 'reasoning-delay', knobs: { reasoning: 80, tokens: 40 } },
  sharedServer: { label: 'Shared server: one slow decode step', expect: 'decode-stall', knobs: { stallEvery: 30, stallMs: 600, tokens: 60 } },
  free: { label: 'Free mode', expect: null, knobs: {} },
};

const KNOB_IDS = Object.keys(BASE);
function setKnobs(values) {
  for (const id of KNOB_IDS) {
    const el = $(id);
    const v = values[id] ?? BASE[id];
    if (el.type === 'checkbox') el.checked = Boolean(v);
    else el.value = String(v);
  }
}
export function knobs() {
  const k = {};
  for (const id of KNOB_IDS) {
    const el = $(id);
    k[id] = el.type === 'checkbox' ? el.checked : el.tagName === 'SELECT' ? el.value : Number(el.value);
  }
  return k;
}

export function pick(name) {
  state.scenario = name;
  const s = SCENARIOS[name];
  for (const b of $('scenarios').children) b.setAttribute('aria-checked', String(b.dataset.name === name));
  if (name !== 'free') setKnobs(s.knobs);
  $('free').open = name === 'free';
  if (s.prompt) $('prompt').value = s.prompt;
  else if ($('prompt').value === LONG_PROMPT) $('prompt').value = 'Where does the latency of a streamed answer go?';
}

for (const [name, s] of Object.entries(SCENARIOS)) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = s.label;
  b.dataset.name = name;
  b.setAttribute('role', 'radio');
  if (s.needs === 'nginx' && !lab.nginx) {
    b.disabled = true;
    b.title = 'needs nginx (apt-get install nginx-light)';
  }
  b.addEventListener('click', () => pick(name));
  $('scenarios').append(b);
}
pick('healthy');
for (const id of KNOB_IDS) $(id).addEventListener('change', () => state.scenario !== 'free' && pick('free'));
