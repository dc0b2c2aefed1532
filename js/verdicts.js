// Generated from src/verdicts.json by scripts/catalog.mjs: do not edit.

/**
 * Each fix's text, by fix id (a verdict's name, or name/variant).
 * @type {Readonly<Record<string, string>>}
 */
export const FIXES = {
  "client-buffers-whole-answer": "The page shows nothing until the answer is complete: render each delta as it arrives, or streaming is wasted.",
  "client-updates-deferred": "The page held arrived text back while its main thread was free and its frames kept coming, then showed it in one step: its updates are deferred, not slow. A low-priority update (React startTransition or useDeferredValue, a debounce) is started over by each more urgent one (key presses, synchronous store updates, each new delta) and can wait seconds: render streaming updates urgently, outside transitions, deferred values and debounces, or use the renderer's direct-update mode.",
  "client-input-delayed": "The user's typing, scrolling and clicks waited for the answer's rendering: each delta's render blocks the main thread. Render incrementally (append, or re-render only the last block), keep each delta's work under a frame, and yield to input between chunks of work (scheduler.yield).",
  "client-smoothing": "The page reveals text slower than it arrives (a typing animation): reveal at least as fast as text arrives, or catch up when the backlog grows (show the waiting text within a few frames). Render cost is not the problem.",
  "client-render-bound": "Bytes arrive but paint lags: render incrementally (append, or re-render only the last block), throttle to a frame at most, keep heavy work off the main thread; latePaints names the scripts.",
  "client-render-growing": "Each delta costs the page more than the last, so the answer slows down towards its end: the whole message is re-rendered on every delta. Render only the block that changed (split the markdown into blocks and memoize the finished ones), and highlight a code block once it is closed.",
  "conversation-weight": "Each answer costs the page more per delta the longer the conversation: the earlier messages are re-rendered with every delta. Keep finished messages out of the re-render (memoize them, or give each a component of its own with stable props), or virtualize the message list.",
  "provider-bursts": "The provider releases tokens in bursts at a steady period (its own streaming, not a proxy: no hop in between is named): no proxy or page setting changes it. Reveal the text smoothly at the arrival rate so the bursts do not show, or choose a provider, region or model that streams per token.",
  "server-buffered": "The server's own streaming layer held tokens back (the response came straight from it: its Server header names no proxy): make the server flush after every event (an SSE writer that yields per token, no buffering or compression middleware), and check that the engine streams per token.",
  "intermediary-buffered/compressing-proxy": "A proxy or CDN compresses and buffers the stream: turn off its compression of text/event-stream (nginx: gzip off) and its buffering (proxy_buffering off, or X-Accel-Buffering: no).",
  "intermediary-buffered/compression": "The response is compressed (Content-Encoding) and the compressor holds bytes until its buffer fills: do not compress text/event-stream, or flush the compressor after every event.",
  "intermediary-buffered/proxy": "A proxy or CDN between server and page buffers the stream: turn off its buffering for this route (nginx: proxy_buffering off, or the X-Accel-Buffering: no header; a CDN: no caching or buffering of text/event-stream).",
  "intermediary-buffered": "Something between the model and the page buffers the stream, and the response headers do not say where: check the server's streaming layer (flush after every event), any proxy (nginx: proxy_buffering off, or X-Accel-Buffering: no), and compression of text/event-stream.",
  "queue-bound": "Requests wait for a free slot: add capacity (replicas, memory for more concurrent sequences) or admission control. This is not a single-request fix.",
  "prefill-bound": "Reading the prompt dominates the wait: shorten it, enable prefix caching for shared prefixes, use chunked prefill.",
  "network-bound": "The network adds the delay: serve closer to users, reuse connections (HTTP/2, keep-alive), remove extra hops.",
  "decode-bound": "Tokens come out slowly or unevenly: tune the engine (batch size, CUDA graphs, speculative decoding), quantize, or use faster hardware.",
  "reasoning-delay": "The model reasons before it answers: show the reasoning as it streams, or lower the reasoning effort.",
  "decode-stall": "One decode step took far longer than the rest, then the pace resumed: a shared server pauses decoding to prefill another prompt. Use chunked prefill (vLLM --enable-chunked-prefill, llama.cpp a smaller --ubatch-size) or cap concurrent prefills.",
  "page-stall": "The page's main thread was blocked through the wait: split long tasks (yield to the event loop between chunks of work), keep heavy work off the main thread.",
  "browser-queued": "The request waited in the browser before it was sent: browsers open at most 6 HTTP/1.1 connections per host. Serve the API over HTTP/2 or HTTP/3, or run fewer streams at once.",
  "insufficient-evidence/dom/closed-shadow-root": "The answer is rendered inside a closed shadow root, which no observer can read: pass an element inside it with track(response, { target }), or give the component an open shadow root.",
  "insufficient-evidence/dom/cross-origin-iframe": "The answer is rendered in a cross-origin iframe: load tokenpaint inside that frame.",
  "insufficient-evidence/dom": "tokenpaint found none of this answer's text on the page, so nothing can be said of the last mile: observe the element that holds the answers (profiler.observe(container)), or pass it with track(response, { target }).",
  "insufficient-evidence/paint": "The answer was seen in the DOM but no frame painted it (a hidden page, or no requestAnimationFrame): perceived figures are unknown.",
  "insufficient-evidence/matched": "Less than 90% of the answer's text was found on screen: observe the element that shows the whole answer (the page may show it in several places, or show other text).",
  "insufficient-evidence/reading": "The page shows another text than the reading of this app's stream that tokenpaint learned (read.path) carries: less than 99% of it was found on screen, so no figure is given from it. Give tokenpaint the answer's events with instrument({ extract }) or profiler.stream(), or report the app's protocol.",
  "insufficient-evidence/arrival-clock": "The page read the stream in bursts while its main thread was busy: a proxy's holds and the page's own late reads look alike from the page. Stamp arrivals off the main thread (the arrivalClock option) to tell them apart, and keep long work off the main thread.",
  "insufficient-evidence/server-timings": "Not enough to decide: without server timings (vLLM metrics, llama.cpp timings, a Server-Timing header) a slow first token cannot be split into queue, prefill and network.",
  "insufficient-evidence/deltas": "Too few answer deltas to judge delivery: at least two are needed.",
  "healthy": "Nothing stands out.",
  "capacity": "Each request is fast on its own but the slow ones wait: the tail is queueing. Add capacity (replicas, concurrent sequences) or admission control; a single-request fix will not help.",
  "tail": "The median is fine but the slowest streams are not: look at the p95/p99 streams' own diagnoses (queueing bursts, cold caches, long prompts).",
  "client-tail": "Most tokens paint promptly but some wait: long tasks on the page (see latePaints in the slow streams' reports).",
};

/**
 * Each verdict's title, by its name.
 * @type {Readonly<Record<string, string>>}
 */
export const TITLES = {
  "client-buffers-whole-answer": "The page waits for the whole answer",
  "client-updates-deferred": "The page defers its updates while it is free",
  "client-input-delayed": "The user's input waits for the page's rendering",
  "client-smoothing": "The page types slower than text arrives",
  "client-render-bound": "The page renders slowly",
  "client-render-growing": "The page re-renders more with every delta",
  "conversation-weight": "The earlier conversation is re-rendered with every delta",
  "provider-bursts": "The provider streams in bursts",
  "server-buffered": "The server's own streaming layer holds tokens back",
  "intermediary-buffered": "An intermediary buffers the stream",
  "queue-bound": "Queueing: waiting for a free slot",
  "prefill-bound": "Prefill: reading a long prompt",
  "network-bound": "Network latency",
  "decode-bound": "Decoding: slow or jittery tokens",
  "reasoning-delay": "The model reasons before answering",
  "decode-stall": "The server stalled: one decode step far longer than the rest",
  "page-stall": "The page's main thread was blocked",
  "browser-queued": "The request waited in the browser (connection limit)",
  "insufficient-evidence": "Not enough evidence to decide",
  "healthy": "Healthy",
  "capacity": "Capacity: the tail waits in a queue",
  "tail": "A tail problem: p95/p99 much slower than the median",
  "client-tail": "Some tokens wait on the page",
};

/** The verdicts of the page's own work, which name its heaviest script where the browser can. */
export const NAMES_SCRIPT = ["client-render-bound","client-render-growing","conversation-weight","page-stall"];

/**
 * Adds to each verdict of `diagnosis` (a report's or a summary's) the text of its fix (`fix`),
 * from its fix id (`fixId`): the core gives ids, the catalog the words. Returns it.
 * @param {Array<{ fixId?: string, fix?: string }> | null | undefined} diagnosis
 */
export function withFixes(diagnosis) {
  for (const v of diagnosis || []) v.fix = (v.fixId && FIXES[v.fixId]) || '';
  return diagnosis;
}
