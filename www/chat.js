// The app: send a prompt, read the stream, render; a load of requests; the stop button.

import { $, messages, lab, profiler, state } from '/www/lab.js';
import { SCENARIOS, knobs } from '/www/scenarios.js';
import { receive, deltas } from '/www/transports.js';
import { renderer, sources } from '/www/render.js';
import { showSummary } from '/www/report.js';

$('ask').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  $('send').disabled = true;
  try {
    const load = SCENARIOS[state.scenario].load;
    const turns = SCENARIOS[state.scenario].turns;
    // A named scenario starts on an empty chat, so that it shows its own failure mode whatever
    // was sent before (earlier answers kept on the page weigh on every re-render: issue 59);
    // free mode keeps the conversation, as a chat app does. Reports stay in the list.
    if (state.scenario !== 'free') messages.replaceChildren();
    if (load) await runLoad(load.n, load.c, true);
    else if (turns) await converse(turns, $('prompt').value);
    else await ask($('prompt').value);
  } catch (e) {
    bubble('assistant').textContent = `Error: ${e.message}`;
  } finally {
    $('send').disabled = false;
  }
});

$('runLoad').addEventListener('click', () => runLoad(Number($('loadN').value), Number($('loadC').value), false));

/**
 * A conversation of `turns` earlier turns, then `prompt`: the first answer streams into an
 * empty chat (the page's answer in a short conversation), copies of it stay as the history.
 */
async function converse(turns, prompt) {
  messages.replaceChildren();
  await ask('A first question');
  const first = messages.lastElementChild;
  for (let i = 1; i < turns; i++) {
    bubble('user', `An earlier question, number ${i + 1}`);
    const a = bubble('assistant');
    a.innerHTML = first.innerHTML;
    sources.set(a, sources.get(first) ?? first.textContent);
  }
  await ask(prompt);
}

export function bubble(role, text = '') {
  const div = document.createElement('div');
  div.className = `msg ${role}`;
  div.textContent = text;
  messages.append(div);
  messages.scrollTop = messages.scrollHeight;
  return div;
}

export function request(prompt, k) {
  const messagesBody = [{ role: 'user', content: prompt }];
  if ($('useOwn').checked && $('baseUrl').value) {
    const target = `${$('baseUrl').value.replace(/\/+$/, '')}/chat/completions`;
    const headers = { 'content-type': 'application/json' };
    if ($('apiKey').value) headers.authorization = `Bearer ${$('apiKey').value}`;
    // A server that never stops (a model with no end of text) still ends: at max tokens.
    const max = Number($('maxTokens').value) || undefined;
    const body = JSON.stringify({ model: $('model').value || undefined, stream: true, stream_options: { include_usage: true }, max_tokens: max, messages: messagesBody });
    if ($('ownVia').value === 'proxy') return ['/proxy', { method: 'POST', headers: { ...headers, 'x-target-url': target }, body }];
    return [target, { method: 'POST', headers, body }];
  }
  const q = new URLSearchParams({
    ttft_ms: k.ttft, token_ms: k.tokenMs, jitter_ms: k.jitter, tokens: k.tokens, reasoning: k.reasoning,
    stall_every: k.stallEvery, stall_ms: k.stallMs, prefill_per_token_ms: k.prefillPerToken, slots: k.slots,
    format: k.format, coalesce_bytes: k.coalesce, flush_ms: k.flushMs, burst_ms: k.burstMs, gzip: k.gzip ? 1 : 0,
  });
  if (k.metrics) q.set('metrics', 'vllm');
  // A sweep shares the built-in server: its slots, batching and llama.cpp's timings.
  for (const [name, value] of Object.entries(k.shared || {})) q.set(name, String(value));
  if (k.serverTiming) q.set('server_timing', 'header');
  if (k.serverHold) q.set('server_hold', '1');
  if (k.empty) q.set('empty', '1');
  if (k.content !== 'words') q.set('content', k.content);
  // A code block of about the tokens asked for (nine to a line).
  if (k.content === 'code') q.set('lines', String(Math.max(1, Math.ceil(k.tokens / 9))));
  const path = `/v1/chat/completions?${q}`;
  const base = k.via === 'direct' || !lab.nginx ? '' : `${lab.nginx}/${k.via === 'nginx-buffered' ? 'buffered' : 'unbuffered'}`;
  return [base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'tokenpaint-sim', stream: true, messages: messagesBody }) }];
}

// The stop button aborts the answer being read: the report says `aborted`, with what was
// measured until then.
let stopping = null;
$('stop').addEventListener('click', () => stopping && stopping.abort());

export async function ask(prompt, quiet = false, signal = null) {
  const k = { ...knobs(), shared: state.sweepShared };
  if (!quiet) bubble('user', prompt.length > 200 ? `${prompt.slice(0, 200)}…` : prompt);
  const out = bubble('assistant');
  const show = renderer(k, out);
  const [url, init] = request(prompt, k);
  const ctrl = new AbortController();
  signal?.addEventListener('abort', () => ctrl.abort());
  if (!quiet) {
    stopping = ctrl;
    $('stop').disabled = false;
  }
  const seen = {};
  try {
    for await (const piece of deltas(await receive(url, { ...init, signal: ctrl.signal }), seen)) {
      // The app's own record of when it got its first delta (the page tests' truth).
      if (!out.dataset.firstDeltaAt) out.dataset.firstDeltaAt = String(performance.now());
      show.push(piece);
    }
  } catch (e) {
    if (e.name !== 'AbortError') throw e;
    out.dataset.stopped = 'true';
  } finally {
    if (stopping === ctrl) {
      stopping = null;
      $('stop').disabled = true;
    }
  }
  // The built-in server's own record of its wait for a slot (an SSE comment).
  if (seen.slotWaitMs !== undefined) out.dataset.slotWaitMs = String(seen.slotWaitMs);
  if (seen.slotTakenAt !== undefined) out.dataset.slotTakenAt = String(seen.slotTakenAt);
  await show.end();
  return out;
}

async function runLoad(n, c, scenarioLoad) {
  $('loadStatus').textContent = `running ${n} requests, ${c} at a time…`;
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await ask(`Request ${next} of a load test`, true).catch(() => {});
    }
  };
  await Promise.all(Array.from({ length: Math.min(c, n) }, worker));
  $('loadStatus').textContent = `${n} requests done`;
  if (!scenarioLoad) showSummary(profiler.summary());
}
