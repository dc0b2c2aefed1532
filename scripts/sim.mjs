// A simulated LLM server: streams an answer the way OpenAI-compatible servers do, with knobs
// for the latency components tokenpaint separates. No dependencies.
//
// Knobs come from the request body's `sim` object or the query string (query wins):
//   ttft_ms     time before the first token (default 200)
//   token_ms    time between tokens (default 30)
//   tokens      answer length in tokens (default 60)
//   jitter_ms   uniform ± jitter per token (default 0)
//   format      openai (default) | sse-text | text
//   usage       1 (default) sends the usage chunk; 0 does not
//   seed        text seed (default 1)
//   status      an HTTP error status (400–599) to answer with instead of a stream
//   content     words (default) | markdown (a fixed markdown answer, cut into small tokens)
//   queue_ms    time spent "waiting for a slot" before prefill (reported as queue time)
//   metrics     vllm (a vLLM-style `metrics` object on the usage chunk) | llamacpp (`timings`)
//   server_timing  header (a Server-Timing header, from the plan) | event (an SSE
//               `server-timing` event at the end) | custom (an `x-sim-timing` header of its own)
//   coalesce_bytes  an intermediary that holds output until this many bytes are buffered
//   hold        all: an intermediary that holds everything until the end
//   format      also: ollama (native NDJSON, with its final object's durations)
//   body_bytes  instead of an answer, a fast stream of this many bytes, sent in uneven writes,
//               whose SHA-256 is in the `x-body-sha256` header (for byte-identity tests)

import { createHash } from 'node:crypto';

const WORDS = (
  'the a latency token stream paint frame server client queue prefill decode proxy network ' +
  'browser render answer model chunk buffer user screen arrives quickly slowly steady burst ' +
  'because when while after before every first last fast slow café naïve 東京 😀 data time'
).split(' ');

function rng(seed) {
  let s = (seed >>> 0) || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** A markdown answer that exercises what renderers change: headings, emphasis, links, inline
 * and fenced code, nested lists, a table, a quote with HTML and entities, non-ASCII text. */
export const MARKDOWN = `## Streaming *latency*, explained

Tokens arrive **one by one**; the page renders them with \`marked\` or [markdown-it](https://github.com/markdown-it/markdown-it "the docs") & friends.

1. Queue: waiting for a *free* slot
2. Prefill: reading the prompt
   - nested item with \`code\`
3. Decode: ~20 ms per token

| phase | fix |
|:------|----:|
| queue | more capacity |
| paint | render less |

\`\`\`python
def lag(painted, arrived):
    return painted - arrived  # ms
\`\`\`

> A quote with <b>HTML</b> &amp; entities.

Done — naïve café 東京 😀, see ![chart](https://example.com/chart.png) and [the report](https://example.com/a/rather/long/url/to/the/full/report/that/nobody/reads).
`;

/** `text` cut into small tokens (1–6 characters, never inside a character), deterministically. */
export function tokenize(text, seed = 1) {
  const r = rng(seed);
  const chars = [...text];
  const out = [];
  for (let i = 0; i < chars.length; ) {
    const n = 1 + Math.floor(r() * 6);
    out.push(chars.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

/** The answer's tokens for a seed: words with a leading space, sentences capitalised. */
export function answerTokens(n, seed = 1) {
  const r = rng(seed);
  const out = [];
  let sentenceStart = true;
  for (let i = 0; i < n; i++) {
    let w = WORDS[Math.floor(r() * WORDS.length)];
    if (sentenceStart) w = w[0].toUpperCase() + w.slice(1);
    sentenceStart = false;
    let tok = (i === 0 ? '' : ' ') + w;
    if (i % 12 === 11 || i === n - 1) {
      tok += '.';
      sentenceStart = true;
    }
    out.push(tok);
  }
  return out;
}

export function knobs(url, body) {
  const q = url.searchParams;
  const b = (body && typeof body === 'object' && body.sim) || {};
  const num = (k, d) => {
    const v = q.has(k) ? Number(q.get(k)) : b[k] !== undefined ? Number(b[k]) : d;
    return Number.isFinite(v) ? v : d;
  };
  const str = (k, d) => (q.has(k) ? q.get(k) : b[k] !== undefined ? String(b[k]) : d);
  return {
    ttft: Math.max(0, num('ttft_ms', 200)),
    tokenMs: Math.max(0, num('token_ms', 30)),
    tokens: Math.max(0, Math.min(200000, Math.floor(num('tokens', 60)))),
    jitter: Math.max(0, num('jitter_ms', 0)),
    format: str('format', 'openai'),
    usage: num('usage', 1) !== 0,
    seed: num('seed', 1),
    bodyBytes: Math.max(0, Math.floor(num('body_bytes', 0))),
    status: Math.floor(num('status', 200)),
    content: str('content', 'words'),
    queue: Math.max(0, num('queue_ms', 0)),
    metrics: str('metrics', ''),
    serverTiming: str('server_timing', ''),
    coalesce: Math.max(0, Math.floor(num('coalesce_bytes', 0))),
    holdAll: str('hold', '') === 'all',
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function chunkJson(id, delta, extra) {
  return JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'tokenpaint-sim',
    choices: [{ index: 0, delta, finish_reason: null, ...extra }],
  });
}

/** Handles POST /v1/chat/completions (and GET for tests). */
export async function handleChat(req, res, url, body) {
  const k = knobs(url, body);
  const stream = !body || body.stream !== false;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  req.socket.setNoDelay(true);

  if (k.bodyBytes > 0) return sendBytes(res, k.bodyBytes, k.seed);
  if (k.status >= 400 && k.status <= 599) {
    await sleep(k.ttft);
    res.writeHead(k.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'simulated failure', type: 'server_error', code: k.status } }));
    return;
  }

  const tokens = k.content === 'markdown' ? tokenize(MARKDOWN, k.seed) : answerTokens(k.tokens, k.seed);
  const id = 'chatcmpl-sim';
  if (!stream) {
    await sleep(k.ttft + k.tokenMs * Math.max(0, tokens.length - 1));
    const text = tokens.join('');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: tokens.length, total_tokens: 10 + tokens.length } }));
    return;
  }
  const sse = k.format !== 'text' && k.format !== 'ollama';
  const decodePlan = k.tokenMs * Math.max(0, tokens.length - 1);
  const headers = {
    'content-type': k.format === 'ollama' ? 'application/x-ndjson' : sse ? 'text/event-stream; charset=utf-8' : 'text/plain; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  };
  if (k.serverTiming === 'custom') {
    // A server's own header, mapped by the app with the `serverTiming` option.
    headers['x-sim-timing'] = `queue=${k.queue} prefill=${k.ttft}`;
  }
  if (k.serverTiming === 'header') {
    headers['server-timing'] = `queue;dur=${k.queue}, prefill;dur=${k.ttft};desc="prompt processing", decode;dur=${decodePlan}`;
  }
  res.writeHead(200, headers);
  res.flushHeaders();
  // An intermediary between server and client: holds bytes until `coalesce` are buffered, or
  // until the end. It records each token's hold (release time − write time) as the truth.
  const held = [];
  let pending = [];
  let pendingBytes = 0;
  const release = () => {
    const now = performance.now();
    for (const p of pending) if (p.token) held.push(now - p.at);
    if (!closed && pending.length) res.write(pending.map((p) => p.s).join(''));
    pending = [];
    pendingBytes = 0;
  };
  const write = (s, token = false) => {
    if (closed) return;
    if (!k.coalesce && !k.holdAll) {
      if (token) held.push(0);
      res.write(s);
      return;
    }
    pending.push({ s, at: performance.now(), token });
    pendingBytes += Buffer.byteLength(s);
    if (k.coalesce && pendingBytes >= k.coalesce) release();
  };
  if (k.queue) await sleep(k.queue);
  const t0 = performance.now();
  const r = rng(k.seed + 7);
  let firstAt = null;
  let lastAt = null;
  for (let i = 0; i < tokens.length && !closed; i++) {
    const jitter = k.jitter ? (r() * 2 - 1) * k.jitter : 0;
    const due = t0 + k.ttft + i * k.tokenMs + jitter;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const now = performance.now();
    firstAt ??= now;
    lastAt = now;
    if (k.format === 'openai') {
      if (i === 0) write(`data: ${chunkJson(id, { role: 'assistant', content: '' })}\n\n`);
      write(`data: ${chunkJson(id, { content: tokens[i] })}\n\n`, true);
    } else if (k.format === 'sse-text') {
      write(`data: ${tokens[i]}\n\n`, true);
    } else if (k.format === 'ollama') {
      write(`${JSON.stringify({ model: 'tokenpaint-sim', created_at: new Date().toISOString(), response: tokens[i], done: false })}\n`, true);
    } else {
      write(tokens[i], true);
    }
  }
  const prefill = firstAt === null ? k.ttft : firstAt - t0;
  const decode = firstAt === null ? 0 : lastAt - firstAt;
  const usage = { prompt_tokens: 10, completion_tokens: tokens.length, total_tokens: 10 + tokens.length };
  if (k.format === 'openai') {
    const last = JSON.parse(chunkJson(id, {}, { finish_reason: 'stop' }));
    if (k.metrics === 'llamacpp') {
      last.timings = { prompt_n: 10, prompt_ms: round(prefill), predicted_n: tokens.length, predicted_ms: round(decode), cache_n: 0 };
    }
    write(`data: ${JSON.stringify(last)}\n\n`);
    if (k.usage) {
      const u = { id, object: 'chat.completion.chunk', choices: [], usage };
      if (k.metrics === 'vllm') {
        u.metrics = { queue_time_ms: round(k.queue), time_to_first_token_ms: round(prefill), generation_time_ms: round(decode), mean_itl_ms: round(decode / Math.max(1, tokens.length - 1)) };
      }
      write(`data: ${JSON.stringify(u)}\n\n`);
    }
  }
  if (k.serverTiming === 'event' && sse) {
    write(`event: server-timing\ndata: queue;dur=${round(k.queue)}, prefill;dur=${round(prefill)}, decode;dur=${round(decode)}\n\n`);
  }
  if (k.format === 'ollama') {
    const ns = (ms) => Math.round(ms * 1e6);
    write(`${JSON.stringify({ model: 'tokenpaint-sim', created_at: new Date().toISOString(), response: '', done: true, done_reason: 'stop', total_duration: ns(k.queue + prefill + decode), load_duration: ns(k.queue), prompt_eval_count: 10, prompt_eval_duration: ns(prefill), eval_count: tokens.length, eval_duration: ns(decode) })}\n`);
  } else if (sse) {
    write('data: [DONE]\n\n');
  }
  release();
  // The truth about the intermediary, for tests: an SSE comment (ignored by parsers).
  if (sse && !closed && held.length) {
    res.write(`: held_mean_ms=${round(held.reduce((a, b) => a + b, 0) / held.length)}\n\n`);
  }
  if (!closed) res.end();
}

const round = (v) => Math.round(v * 100) / 100;

/** A fast stream of `n` bytes of OpenAI-style events, in uneven writes, hash in a header. */
async function sendBytes(res, n, seed) {
  const r = rng(seed);
  const parts = [];
  let size = 0;
  let i = 0;
  let events = 0;
  while (size < n) {
    const words = answerTokens(8 + Math.floor(r() * 24), seed + i++).join('');
    const ev = Buffer.from(`data: ${chunkJson('b', { content: words })}\n\n`);
    parts.push(ev);
    size += ev.length;
    events++;
  }
  const done = Buffer.from('data: [DONE]\n\n');
  parts.push(done);
  const body = Buffer.concat(parts);
  const hash = createHash('sha256').update(body).digest('hex');
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-body-sha256': hash,
    'x-body-length': String(body.length),
    'x-body-events': String(events),
  });
  // Uneven writes, split anywhere (inside events and inside multibyte characters).
  let at = 0;
  while (at < body.length) {
    const len = 1 + Math.floor(r() * 9000);
    res.write(body.subarray(at, at + len));
    at += len;
    if (r() < 0.2) await new Promise((resolve) => setImmediate(resolve));
  }
  res.end();
}
