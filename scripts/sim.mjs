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
//   content     words (default) | markdown (a fixed markdown answer, cut into small tokens) |
//               code (a paragraph, then a fenced JavaScript block of `lines` lines, default 220:
//               the answer whose whole-message re-render with a highlighter grows with it) |
//               math (a fixed answer full of formulas, `$…$` and `$$…$$`, that ends in one) |
//               math-long (`paragraphs` paragraphs of them, default 8, each of `sentences`
//               sentences, default 2, about 180 characters and 2 formulas each; the last ends in
//               a formula: the long answer of issue 49; `list=1`: as the items of a numbered list)
//   queue_ms    time spent "waiting for a slot" before prefill (reported as queue time)
//   metrics     vllm (a vLLM-style `metrics` object on the usage chunk) | llamacpp (`timings`)
//   timings_per_token  1: with format openai, every answer chunk carries llama.cpp's timings so
//               far (`predicted_ms` since the first sampled token), as llama-server does with
//               `timings_per_token`
//   server_timing  header (a Server-Timing header, from the plan) | event (an SSE
//               `server-timing` event at the end) | custom (an `x-sim-timing` header of its own)
//   tao         1: a `Timing-Allow-Origin: *` header (cross-origin pages see the Resource
//               Timing details and Server-Timing)
//   coalesce_bytes  an intermediary that holds output until this many bytes are buffered
//   hold        all: an intermediary that holds everything until the end
//   format      also: ollama (native NDJSON, with its final object's durations), responses,
//               anthropic, tgi, llamacpp (native /completion), ai-sdk-ui
//   slots       serve at most this many requests at once; others wait (real queueing). The
//               headers leave when a slot takes the request, as llama-server sends them; the
//               wait's truth is in an SSE comment `: slot_wait_ms=…` at the end
//   headers     once: send the headers before waiting for a slot (as ASGI servers such as vLLM's
//               and llama-cpp-python answer at once)
//   pool        the name of the slots' pool (default: one pool per slot count), so that a test's
//               requests queue only behind each other
//   batch       continuous batching: each decode step takes token_ms × (1 + batch × (n − 1)),
//               n the streams of the pool decoding at that moment (0 by default: no slowdown)
//   prefill_per_token_ms  prefill time per prompt token (prompt ≈ characters / 4)
//   stall_every, stall_ms  every N tokens, the server stalls this long
//   stall_at    with stall_ms: one decode step before token N takes this much longer (a shared
//               server prefilling another request's prompt mid-stream); the stall's truth is in
//               an SSE comment `: stall_at_ms=… stall_ms=…` at the end
//   reasoning   this many reasoning deltas before the answer (openai-style reasoning_content)
//   flush_ms    an intermediary that releases what it holds every X ms
//   burst_ms    the provider itself releases what it decoded every X ms (no hop in between, so
//               no Via header: a hosted API that streams in bursts)
//   gzip        1: compress the body (zlib buffers, as a proxy's compression does)
//   destroy_after  after this many tokens, the connection is destroyed (a network error)
//   end_after   after this many tokens, the server ends the body early (no end marker)
//   server_hold 1: the server's own streaming layer holds every token after the first until the
//               end (as llama-cpp-python was seen to: the first token, a silence, the rest at
//               once); no proxy header is sent, as from a server answering directly
//   merge       this many tokens to a delta (default 1)
//   headers_ms  wait this long before sending the response headers (servers that answer only
//               once they have something to say)
//   empty       1: a 200 text/event-stream response with no event at all (llama.cpp-based
//               servers answer a prompt longer than their context so)
//   body_bytes  instead of an answer, a fast stream of this many bytes, sent in uneven writes,
//               whose SHA-256 is in the `x-body-sha256` header (for byte-identity tests)

import { createHash } from 'node:crypto';
import { createGzip, constants as zlibConstants } from 'node:zlib';

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
/** An answer full of formulas that ends in one: what KaTeX draws rather than shows. */
export const MATH = 'The area of a circle is $A = \\pi r^2$ and its circumference is $C = 2 \\pi r$, so $$\\frac{C^2}{4 \\pi} = A$$ holds for every circle. The sum of the first n integers is $\\frac{n(n+1)}{2}$, and Euler wrote $e^{i\\pi} + 1 = 0$';

// The sentences of a long answer full of formulas, each with inline and display math.
const MATH_SENTENCES = [
  'The variance is $\\sigma^2 = \\mathbb{E}[(X - \\mu)^2]$, and for $n$ samples $$s^2 = \\frac{1}{n-1} \\sum_{i=1}^{n} (x_i - \\bar{x})^2$$ is unbiased.',
  'A geometric series sums to $\\sum_{k=0}^{\\infty} r^k = \\frac{1}{1-r}$ when $|r| < 1$, which gives $$\\int_0^1 x^n \\, dx = \\frac{1}{n+1}$$ by the same limit.',
  'The Gaussian integral $\\int_{-\\infty}^{\\infty} e^{-x^2} dx = \\sqrt{\\pi}$ normalises $$f(x) = \\frac{1}{\\sigma \\sqrt{2\\pi}} e^{-\\frac{(x-\\mu)^2}{2\\sigma^2}}$$ for every mean.',
  'For a matrix $A$ with $\\det(A) \\neq 0$ the inverse is $A^{-1} = \\frac{1}{\\det A} \\operatorname{adj}(A)$, and $$\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}^{-1} = \\frac{1}{ad - bc} \\begin{pmatrix} d & -b \\\\ -c & a \\end{pmatrix}$$ in two dimensions.',
  'Bayes wrote $P(A \\mid B) = \\frac{P(B \\mid A) P(A)}{P(B)}$, so with a prior $\\pi(\\theta)$ the posterior is $$p(\\theta \\mid x) \\propto p(x \\mid \\theta) \\, \\pi(\\theta)$$ up to a constant.',
  'Stirling gives $n! \\approx \\sqrt{2 \\pi n} \\left(\\frac{n}{e}\\right)^n$, and the binomial coefficient $$\\binom{n}{k} = \\frac{n!}{k! \\, (n-k)!}$$ counts the subsets.',
];

/** A long answer full of formulas: `n` paragraphs of `per` of the sentences above, the last ending in one. */
export function mathAnswer(n = 8, per = 2, list = false) {
  const paragraphs = [];
  const at = (i) => MATH_SENTENCES[i % MATH_SENTENCES.length];
  for (let p = 0; p < n; p++) paragraphs.push(`${list ? `${p + 1}.` : `Part ${p + 1}:`} ${Array.from({ length: per }, (_, j) => at(p + j)).join(' ')}`);
  return `${paragraphs.join('\n\n')}\n\nSo, in the end, $e^{i\\pi} + 1 = 0$`;
}

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

/** `n` tokens to a delta (a server that sends several tokens per event). */
const merged = (tokens, n) => (n <= 1 ? tokens : Array.from({ length: Math.ceil(tokens.length / n) }, (_, i) => tokens.slice(i * n, i * n + n).join('')));

/** A markdown answer with a code block of `lines` lines of JavaScript, deterministic. */
export function codeAnswer(lines = 220) {
  const names = ['latency', 'frame', 'token', 'paint', 'buffer', 'stream', 'chunk', 'queue'];
  const out = ['Here is the profiler loop, line by line:', '', '```js'];
  for (let i = 0; i < lines; i++) {
    const a = names[i % names.length];
    const b = names[(i * 3 + 1) % names.length];
    switch (i % 5) {
      case 0:
        out.push(`function ${a}${i}(${b}) {`);
        break;
      case 1:
        out.push(`  const ${a} = ${b}.map((x) => x * ${i}); // ${b} step`);
        break;
      case 2:
        out.push(`  if (${a}.length > ${i}) return "${b}-${i}";`);
        break;
      case 3:
        out.push(`  return ${a}.reduce((s, v) => s + v, 0) / ${i + 1};`);
        break;
      default:
        out.push('}');
    }
  }
  out.push('```', '', 'That is all.');
  return out.join('\n');
}

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

function maxTokens(body) {
  const m = body && typeof body === 'object' ? Number(body.max_completion_tokens ?? body.max_tokens) : NaN;
  return Number.isFinite(m) && m > 0 ? Math.floor(m) : Infinity;
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
    // The request's own cap (OpenAI `max_tokens` / `max_completion_tokens`), as a server honours it.
    tokens: Math.max(0, Math.min(200000, Math.floor(num('tokens', 60)), maxTokens(body))),
    jitter: Math.max(0, num('jitter_ms', 0)),
    format: str('format', 'openai'),
    usage: num('usage', 1) !== 0,
    seed: num('seed', 1),
    bodyBytes: Math.max(0, Math.floor(num('body_bytes', 0))),
    status: Math.floor(num('status', 200)),
    content: str('content', 'words'),
    lines: Math.max(1, Math.min(5000, Math.floor(num('lines', 220)))),
    paragraphs: Math.max(1, Math.min(200, Math.floor(num('paragraphs', 8)))),
    sentences: Math.max(1, Math.min(60, Math.floor(num('sentences', 2)))),
    list: num('list', 0) === 1,
    queue: Math.max(0, num('queue_ms', 0)),
    metrics: str('metrics', ''),
    serverTiming: str('server_timing', ''),
    tao: str('tao', '') === '1',
    coalesce: Math.max(0, Math.floor(num('coalesce_bytes', 0))),
    holdAll: str('hold', '') === 'all',
    slots: Math.max(0, Math.floor(num('slots', 0))),
    headersOnce: str('headers', '') === 'once',
    pool: str('pool', ''),
    batch: Math.max(0, num('batch', 0)),
    prefillPerToken: Math.max(0, num('prefill_per_token_ms', 0)),
    stallEvery: Math.max(0, Math.floor(num('stall_every', 0))),
    stallMs: Math.max(0, num('stall_ms', 0)),
    stallAt: Math.max(0, Math.floor(num('stall_at', 0))),
    perToken: num('timings_per_token', 0) === 1,
    reasoning: Math.max(0, Math.min(2000, Math.floor(num('reasoning', 0)))),
    flushMs: Math.max(0, num('flush_ms', 0)),
    burstMs: Math.max(0, num('burst_ms', 0)),
    gzip: num('gzip', 0) === 1,
    destroyAfter: Math.max(0, Math.floor(num('destroy_after', 0))),
    endAfter: Math.max(0, Math.floor(num('end_after', 0))),
    serverHold: num('server_hold', 0) === 1,
    empty: num('empty', 0) === 1,
    headersMs: Math.max(0, num('headers_ms', 0)),
    merge: Math.max(1, Math.floor(num('merge', 1))),
    garbage: num('garbage', 0) === 1,
    resume: Math.max(0, Math.floor(num('resume', 0))),
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Real queueing: a pool of slots per capacity (or per name); a request waits for a free slot.
// `decoding` counts the pool's streams in their decode loop (continuous batching slows them).
const pools = new Map();
function poolOf(capacity, name) {
  const key = `${name}/${capacity}`;
  let pool = pools.get(key);
  if (!pool) pools.set(key, (pool = { active: 0, waiting: [], decoding: 0 }));
  return pool;
}
async function acquire(capacity, name = '') {
  if (!capacity) return () => {};
  const pool = poolOf(capacity, name);
  if (pool.active >= capacity) await new Promise((r) => pool.waiting.push(r));
  pool.active++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    pool.active--;
    const next = pool.waiting.shift();
    if (next) next();
  };
}

/** One answer delta in a format's wire shape (null: the format has no such event). */
function frame(format, kind, text, i) {
  const j = (o) => JSON.stringify(o);
  switch (format) {
    case 'openai':
      return kind === 'reasoning' ? `data: ${chunkJson('chatcmpl-sim', { reasoning_content: text })}\n\n` : `data: ${chunkJson('chatcmpl-sim', { content: text })}\n\n`;
    case 'responses':
      return kind === 'reasoning'
        ? `event: response.reasoning_summary_text.delta\ndata: ${j({ type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 0, delta: text })}\n\n`
        : `event: response.output_text.delta\ndata: ${j({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: text, sequence_number: i })}\n\n`;
    case 'anthropic':
      return `event: content_block_delta\ndata: ${j({ type: 'content_block_delta', index: kind === 'reasoning' ? 0 : 1, delta: kind === 'reasoning' ? { type: 'thinking_delta', thinking: text } : { type: 'text_delta', text } })}\n\n`;
    case 'tgi':
      return kind === 'reasoning' ? null : `data:${j({ index: i + 1, token: { id: 100 + i, text, logprob: -0.5, special: false }, generated_text: null, details: null })}\n\n`;
    case 'llamacpp':
      return kind === 'reasoning' ? null : `data: ${j({ content: text, stop: false, id_slot: 0, index: 0 })}\n\n`;
    case 'ai-sdk-ui':
      return `data: ${j({ type: kind === 'reasoning' ? 'reasoning-delta' : 'text-delta', id: kind === 'reasoning' ? 'r1' : 't1', delta: text })}\n\n`;
    case 'ollama':
      return `${j({ model: 'tokenpaint-sim', created_at: new Date().toISOString(), response: kind === 'reasoning' ? '' : text, thinking: kind === 'reasoning' ? text : undefined, done: false })}\n`;
    case 'sse-text':
      return kind === 'reasoning' ? null : `data: ${text}\n\n`;
    default:
      return kind === 'reasoning' ? null : text;
  }
}

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
  if (k.resume) return sendResumable(req, res, k);
  if (k.status >= 400 && k.status <= 599) {
    await sleep(k.ttft);
    res.writeHead(k.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'simulated failure', type: 'server_error', code: k.status } }));
    return;
  }

  const tokens = merged(k.content === 'markdown' ? tokenize(MARKDOWN, k.seed) : k.content === 'math' ? tokenize(MATH, k.seed) : k.content === 'math-long' ? tokenize(mathAnswer(k.paragraphs, k.sentences, k.list), k.seed) : k.content === 'code' ? tokenize(codeAnswer(k.lines), k.seed) : answerTokens(k.tokens, k.seed), k.merge);
  const id = 'chatcmpl-sim';
  if (!stream) {
    await sleep(k.ttft + k.tokenMs * Math.max(0, tokens.length - 1));
    const text = tokens.join('');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: tokens.length, total_tokens: 10 + tokens.length } }));
    return;
  }
  const sse = k.format !== 'text' && k.format !== 'ollama';
  // Prefill grows with the prompt (≈ 4 characters per token).
  // A GET (an EventSource) has no body: `prompt_chars` stands in for its prompt.
  const promptChars = body && body.messages ? JSON.stringify(body.messages).length : Number(url.searchParams.get('prompt_chars')) || 2;
  k.ttft += k.prefillPerToken * Math.ceil(promptChars / 4);
  const decodePlan = k.tokenMs * Math.max(0, tokens.length - 1);
  const headers = {
    'content-type': k.format === 'ollama' ? 'application/x-ndjson' : sse ? 'text/event-stream; charset=utf-8' : 'text/plain; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    // A server names itself; a proxy in front (nginx) puts its own name here instead.
    server: 'tokenpaint-sim',
  };
  // The simulated intermediary (coalesce_bytes, flush_ms, hold=all) says so, as proxies do.
  if (k.coalesce || k.holdAll || k.flushMs) headers.via = '1.1 tokenpaint-sim-buffer';
  if (k.format === 'ai-sdk-ui') headers['x-vercel-ai-ui-message-stream'] = 'v1';
  if (k.tao) headers['timing-allow-origin'] = '*';
  if (k.gzip) headers['content-encoding'] = 'gzip';
  // Wait for a slot: the wait is queue time. Headers leave when the slot is taken (as
  // llama-server sends them), or before the wait with `headers=once`.
  const early = k.headersOnce && !k.empty;
  if (early) {
    res.writeHead(200, headers);
    res.flushHeaders();
  }
  const queuedAt = performance.now();
  const release = await acquire(k.slots, k.pool);
  res.on('close', release);
  // The client left while it waited (a stopped sweep): the slot goes to the next at once.
  if (closed) return release();
  // Queue time as reported: the simulated wait (queue_ms, slept below) plus the real wait for
  // a slot (already over).
  const slotTakenAt = performance.now();
  const slotWait = k.slots ? slotTakenAt - queuedAt : 0;
  if (k.headersMs) await sleep(k.headersMs);
  if (k.empty) {
    res.writeHead(200, headers);
    res.end();
    release();
    return;
  }

  if (k.serverTiming === 'custom') {
    // A server's own header, mapped by the app with the `serverTiming` option.
    headers['x-sim-timing'] = `queue=${k.queue} prefill=${k.ttft}`;
  }
  if (k.serverTiming === 'header') {
    headers['server-timing'] = `queue;dur=${k.queue}, prefill;dur=${k.ttft};desc="prompt processing", decode;dur=${decodePlan}`;
  }
  if (!early) {
    res.writeHead(200, headers);
    res.flushHeaders();
  }
  // With gzip, bytes go through zlib, which holds them until its buffer fills (as a proxy's
  // compression does when it is not told to flush).
  let gz = null;
  if (k.gzip) {
    gz = createGzip({ level: 6, flush: zlibConstants.Z_NO_FLUSH });
    gz.on('data', (d) => !closed && res.write(d));
  }
  const out = (s) => (gz ? gz.write(s) : res.write(s));
  // An intermediary between server and client: holds bytes until `coalesce` are buffered, every
  // `flush_ms`, or until the end. It records each token's hold (release time − write time) as
  // the truth.
  const held = [];
  let pending = [];
  let pendingBytes = 0;
  const flushOut = () => {
    const now = performance.now();
    for (const p of pending) if (p.token) held.push(now - p.at);
    if (!closed && pending.length) out(pending.map((p) => p.s).join(''));
    pending = [];
    pendingBytes = 0;
  };
  const flusher = k.flushMs || k.burstMs ? setInterval(flushOut, k.flushMs || k.burstMs) : null;
  let tokensOut = 0;
  const write = (s, token = false) => {
    if (closed || s === null) return;
    if (!k.coalesce && !k.holdAll && !k.flushMs && !k.burstMs && !(k.serverHold && tokensOut > 0)) {
      if (token) {
        held.push(0);
        tokensOut++;
      }
      out(s);
      return;
    }
    pending.push({ s, at: performance.now(), token });
    pendingBytes += Buffer.byteLength(s);
    if (k.coalesce && pendingBytes >= k.coalesce) flushOut();
  };
  // Format openings.
  if (k.format === 'responses') write(`event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response: { id: 'resp_sim', status: 'in_progress' } })}\n\n`);
  if (k.format === 'anthropic') write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_sim', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 10, output_tokens: 1 } } })}\n\n`);
  if (k.format === 'ai-sdk-ui') write(`data: ${JSON.stringify({ type: 'start', messageId: 'msg-sim' })}\n\ndata: {"type":"start-step"}\n\n`);
  if (k.queue) await sleep(k.queue);
  k.queue += slotWait;
  const t0 = performance.now();
  const r = rng(k.seed + 7);
  let firstAt = null;
  let lastAt = null;
  const thoughts = answerTokens(k.reasoning, k.seed + 99);
  let stalled = 0;
  let stallTruth = null;
  // Continuous batching: the pool's streams decoding at once slow each step.
  const pool = k.batch ? poolOf(k.slots, k.pool) : null;
  if (pool) pool.decoding++;
  let decoded = 0;
  for (let i = 0; i < thoughts.length + tokens.length && !closed; i++) {
    const jitter = k.jitter ? (r() * 2 - 1) * k.jitter : 0;
    if (k.stallEvery && i > 0 && i % k.stallEvery === 0) stalled += k.stallMs;
    if (k.stallAt && i === k.stallAt) stalled += k.stallMs;
    if (i > 0) decoded += k.tokenMs * (pool ? 1 + k.batch * Math.max(0, pool.decoding - 1) : 1);
    const due = t0 + k.ttft + decoded + jitter + stalled;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const now = performance.now();
    firstAt ??= now;
    if (k.stallAt && i === k.stallAt) stallTruth = { at: lastAt - t0, ms: now - lastAt };
    lastAt = now;
    const reasoning = i < thoughts.length;
    const text = reasoning ? thoughts[i] : tokens[i - thoughts.length];
    if (k.format === 'openai' && i === 0) write(`data: ${chunkJson(id, { role: 'assistant', content: '' })}\n\n`);
    // The AI SDK UI stream opens each part before its deltas (its client requires it).
    if (k.format === 'ai-sdk-ui' && reasoning && i === 0) write('data: {"type":"reasoning-start","id":"r1"}\n\n');
    if (k.format === 'ai-sdk-ui' && i === thoughts.length) {
      write(`${thoughts.length ? 'data: {"type":"reasoning-end","id":"r1"}\n\n' : ''}data: {"type":"text-start","id":"t1"}\n\n`);
    }
    if (k.perToken && k.format === 'openai' && !reasoning) {
      // llama.cpp's `timings_per_token`: each token's chunk carries the timings so far
      // (`predicted_ms` from the first sampled token to this one).
      const o = JSON.parse(chunkJson(id, { content: text }));
      o.timings = { prompt_n: 10, prompt_ms: round(firstAt - t0), predicted_n: i + 1 - thoughts.length, predicted_ms: round(now - firstAt) };
      write(`data: ${JSON.stringify(o)}\n\n`, true);
    } else {
      write(frame(k.format, reasoning ? 'reasoning' : 'answer', text, i), !reasoning);
    }
    // Hostile input between deltas: an event of invalid JSON, and one of bytes that are not UTF-8.
    if (k.garbage) write(Buffer.concat([Buffer.from('data: {"choices": [ not json\n\ndata: '), Buffer.from([0xff, 0xfe, 0x00, 0x9c]), Buffer.from('\n\n')]));
    if (k.destroyAfter && i + 1 >= k.destroyAfter) {
      if (pool) pool.decoding--;
      release();
      // Mid-stream: the client sees a network error. A moment first, so that what was sent is
      // read before the reset (a reset makes the kernel drop data not yet read).
      setTimeout(() => res.socket.destroy(), 50);
      return;
    }
    if (k.endAfter && i + 1 >= k.endAfter) {
      if (pool) pool.decoding--;
      release();
      // Half an event, then the end: the server closed early.
      res.end(`data: {"choices":[{"index":0,"delta":{"content":"cut`);
      return;
    }
  }
  if (pool) pool.decoding--;
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
  if (k.format === 'responses') {
    write(`event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: { id: 'resp_sim', status: 'completed', usage: { input_tokens: 10, output_tokens: tokens.length + thoughts.length, output_tokens_details: { reasoning_tokens: thoughts.length } } } })}\n\n`);
  } else if (k.format === 'anthropic') {
    write(`event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: tokens.length + thoughts.length } })}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`);
  } else if (k.format === 'tgi') {
    write(`data:${JSON.stringify({ index: tokens.length + 1, token: { id: 2, text: '</s>', logprob: -0.01, special: true }, generated_text: tokens.join(''), details: { finish_reason: 'eos_token', generated_tokens: tokens.length + 1 } })}\n\n`);
  } else if (k.format === 'llamacpp') {
    write(`data: ${JSON.stringify({ content: '', stop: true, tokens_predicted: tokens.length, tokens_evaluated: 10, stop_type: 'eos', timings: { prompt_n: 10, prompt_ms: round(prefill), predicted_n: tokens.length, predicted_ms: round(decode) } })}\n\n`);
  } else if (k.format === 'ai-sdk-ui') {
    write(`data: {"type":"text-end","id":"t1"}\n\ndata: {"type":"finish-step"}\n\ndata: ${JSON.stringify({ type: 'finish' })}\n\ndata: [DONE]\n\n`);
  }
  if (k.serverTiming === 'event' && sse) {
    write(`event: server-timing\ndata: queue;dur=${round(k.queue)}, prefill;dur=${round(prefill)}, decode;dur=${round(decode)}\n\n`);
  }
  if (k.format === 'ollama') {
    const ns = (ms) => Math.round(ms * 1e6);
    write(`${JSON.stringify({ model: 'tokenpaint-sim', created_at: new Date().toISOString(), response: '', done: true, done_reason: 'stop', total_duration: ns(k.queue + prefill + decode), load_duration: ns(k.queue), prompt_eval_count: 10, prompt_eval_duration: ns(prefill), eval_count: tokens.length, eval_duration: ns(decode) })}\n`);
  } else if (sse && (k.format === 'openai' || k.format === 'sse-text')) {
    write('data: [DONE]\n\n');
  }
  if (flusher) clearInterval(flusher);
  flushOut();
  // The truth about the intermediary, for tests: an SSE comment (ignored by parsers).
  if (sse && !closed && held.length && !gz) {
    res.write(`: held_mean_ms=${round(held.reduce((a, b) => a + b, 0) / held.length)}\n\n`);
  }
  if (sse && !closed && k.slots && !gz) res.write(`: slot_wait_ms=${round(slotWait)}\n\n`);
  // When the slot was taken, on the machine's clock (performance.timeOrigin + now, as a page on
  // this machine reads it): the wait as the page saw it, from its request's start, includes the
  // time before this server took the request up, which a loaded server makes long.
  if (sse && !closed && k.slots && !gz) res.write(`: slot_taken_at=${(performance.timeOrigin + slotTakenAt).toFixed(2)}\n\n`);
  if (sse && !closed && stallTruth && !gz) {
    res.write(`: stall_at_ms=${round(stallTruth.at)} stall_ms=${round(stallTruth.ms)}\n\n`);
  }
  release();
  if (gz) {
    await new Promise((r) => gz.end(r));
    await new Promise((r) => setImmediate(r));
  }
  if (!closed) res.end();
}

const round = (v) => Math.round(v * 100) / 100;

/** A fast stream of `n` bytes of OpenAI-style events, in uneven writes, hash in a header. */
/**
 * An answer an EventSource resumes: every event has an id; the first connection ends after
 * `resume` tokens without an end; a reconnect (Last-Event-ID) gets the rest, then [DONE].
 */
async function sendResumable(req, res, k) {
  const tokens = answerTokens(k.tokens, k.seed);
  const last = Number(req.headers['last-event-id']);
  const from = req.headers['last-event-id'] !== undefined && Number.isInteger(last) && last >= 0 ? last + 1 : 0;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write('retry: 50\n\n');
  await sleep(k.ttft);
  for (let i = from; i < tokens.length; i++) {
    if (i > from) await sleep(k.tokenMs);
    if (from === 0 && i === k.resume) return res.end();
    res.write(`id: ${i}\ndata: ${chunkJson('chatcmpl-sim', { content: tokens[i] })}\n\n`);
  }
  res.write(`data: ${chunkJson('chatcmpl-sim', {}, { finish_reason: 'stop' })}\n\n`);
  res.write(`data: ${JSON.stringify({ id: 'chatcmpl-sim', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 10, completion_tokens: tokens.length - from, total_tokens: 10 + tokens.length - from } })}\n\n`);
  res.end('data: [DONE]\n\n');
}

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
