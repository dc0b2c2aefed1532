/** Loads the WebAssembly core (once). `input` overrides where the .wasm comes from. */
export default function init(
  input?: string | URL | Request | Response | BufferSource | WebAssembly.Module,
): Promise<void>;

/** Bytes of wasm linear memory (it grows, never shrinks), or null before `init()`. */
export declare function wasmMemoryBytes(): number | null;

/** A stream format tokenpaint reads, or `auto` to detect it. */
export type Format =
  | 'auto'
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'ollama'
  | 'tgi'
  | 'llamacpp'
  | 'ai-sdk-ui'
  | 'ai-sdk-data'
  | 'sse-text'
  | 'text'
  | 'json';

export interface ProfilerOptions {
  /** The stream format; `auto` (default) detects it from the content type and first events. */
  format?: Format;
  /** The fetch to wrap (default: the global fetch at construction). */
  fetch?: typeof globalThis.fetch;
  /**
   * Stamp arrivals off the main thread with the service worker `tokenpaint/arrival-sw.js`,
   * which the app serves and registers itself (`navigator.serviceWorker.register('/arrival-sw.js?match=/v1/chat/completions')`):
   * reports then say `arrivals.clock: 'service-worker'`, and `arrivals.lateReadMs` is measured.
   */
  arrivalClock?: boolean;
  /** Quiet time after the stream's end before a report is taken without full paint (ms, default 1000). */
  settleMs?: number;
  /** Longest wait after the end of the stream before a report is taken (ms, default 30000). */
  maxSettleMs?: number;
  /** A stream with no chunk for this long (the app stopped reading) is reported incomplete (ms, default 120000). */
  idleMs?: number;
  /** Include per-token arrays in reports (default true). */
  timeline?: boolean;
  /** How many reports `reports()` keeps (default 1000). */
  maxReports?: number;
  /** Put the answer and reasoning text in reports (`text`, `reasoningText`). Off by default. */
  includeText?: boolean;
  /** Text waiting with no paint for longer than this (ms, default 100) is a stall. */
  stallMs?: number;
  /** Per-token records kept per stream (default 8192, at least 64). Past it neighbouring records merge: counts, characters, TTFT and E2E stay exact, ITL and lag percentiles come from a sketch (within 1%), and the report says `detail.decimated`. */
  maxTokenDetail?: number;
  /** A token painted more than this after it arrived (ms, default 50) is late. */
  lateMs?: number;
  /** Add performance.measure entries per phase on a "tokenpaint" track of the DevTools Performance panel (default false). */
  devtools?: boolean;
  /**
   * OpenTelemetry, in the GenAI semantic conventions' terms: through the page's own SDK when it
   * registered providers with @opentelemetry/api (unless `useGlobal: false`), else to a collector
   * at `url` (OTLP/HTTP JSON: a trace per stream, delta-temporality histograms).
   */
  otlp?: {
    url?: string;
    headers?: Record<string, string>;
    serviceName?: string;
    maxBatch?: number;
    intervalMs?: number;
    /** Inject W3C `traceparent` into the profiled requests whose URL matches (a substring, a RegExp, a function, or a list); none otherwise. */
    propagate?: string | RegExp | ((url: string) => boolean) | (string | RegExp | ((url: string) => boolean))[];
    /** Use the page's registered OpenTelemetry SDK when there is one (default true). */
    useGlobal?: boolean;
    /** `gen_ai.provider.name` (default: from the detected format, e.g. `openai`). */
    provider?: string;
    /** `gen_ai.request.model` (default: the `model` of the request's JSON body). */
    model?: string;
    /** `gen_ai.operation.name` (default `chat`). */
    operation?: string;
  } | null;
  /** A label for every stream of this profiler; summaries group by label. */
  label?: string;
  /** Targets, e.g. `{ ttftPerceived: { p95: 1000 }, tpot: { p50: 50 } }`. */
  slo?: Partial<Record<SummaryMetric, Record<string, number>>>;
  /** `[good up to, poor above]` in ms per metric (default `THRESHOLDS`). */
  thresholds?: Partial<Record<RatedMetric, [number, number]>>;
  /** Your own mapping of your server's response headers to timings (ms). */
  /** The share of page loads profiled, 0 to 1 (default 1): drawn once per page load. An unsampled profiler loads no wasm, observes nothing and hands back responses untouched. Reports and summaries carry it. */
  sampleRate?: number;
  /** The share of streams profiled on a sampled page, 0 to 1 (default 1), each stream drawn on its own: a stream left out is not wrapped and makes no report. Reports and summaries carry `sampleRate × streamSampleRate`. */
  streamSampleRate?: number;
  /** Your own mapping of your server's response headers to timings (ms). */
  serverTiming?: (response: Response) => { queue?: number; prefill?: number; decode?: number; ttft?: number; total?: number; load?: number } | null | undefined;
}

export type RatedMetric = 'ttft' | 'ttftPerceived' | 'e2ePerceived' | 'tpot' | 'lag';
export type SummaryMetric =
  | 'ttft' | 'ttftPerceived' | 'e2e' | 'e2ePerceived' | 'tpot' | 'itl' | 'lag'
  | 'queue' | 'prefill' | 'network' | 'decode' | 'intermediary' | 'client';
export type Rating = 'good' | 'needs-improvement' | 'poor';

/** Default rating thresholds: `[good up to, poor above]` in ms. */
export declare const THRESHOLDS: Readonly<Record<RatedMetric, readonly [number, number]>>;

/** One headline metric of a finished stream, web-vitals style. */
export interface Metric {
  name: RatedMetric;
  value: number;
  rating: Rating | null;
  /** The report's id. */
  id: number;
  attribution: { diagnosis: Report['diagnosis'][number] | null; phases: Report['phases']; format: Report['format'] };
}

export interface TrackOptions {
  /** A label for this stream. */
  label?: string;
  /** The element that will show this response's answer. */
  target?: Element;
  /** When the request started, as performance.now(). Without it, the start is taken from the request's Resource Timing entry (`startSource`). */
  start?: number;
  /** The stream format for this response. */
  format?: Format;
}

/** One answer message of a socket protocol other than OpenAI chunk JSON per message. */
export interface ExtractedMessage {
  /** The answer the message belongs to (one socket may carry several at once). */
  id: string | number;
  /** New answer text. */
  delta?: string;
  /** Or the answer's text so far (what is new is taken from it). */
  text?: string;
  /** Whether the message ends the answer. */
  done?: boolean;
}

/** A socket.io-client Socket, as tokenpaint uses it (it does not load Socket.IO itself). */
export interface SocketIoLike {
  io: unknown;
  emit(...args: unknown[]): unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  onAny(listener: (event: string, ...args: any[]) => void): unknown;
}

export interface TransportOptions extends TrackOptions {
  /** For an XMLHttpRequest tracked before `send()`: its URL. */
  url?: string;
  /** For sockets: reads one message (for a socket.io-client Socket: an event's payload and name); null for messages that are not part of an answer. */
  extract?: (message: any, eventName?: string) => ExtractedMessage | null;
  /** For an EventSource: named events to read besides `message` and the formats' own. */
  events?: string[];
}

export interface InstrumentOptions extends Omit<TransportOptions, 'start' | 'url'> {
  /** Which URLs to profile: a string they contain, a RegExp, or a function (all without it). */
  match?: string | RegExp | ((url: string) => boolean);
}

export interface PushOptions extends Omit<TrackOptions, 'start'> {
  /** The endpoint, for the report (its query string is left out). */
  url?: string;
  /** What the chunks are: `text/event-stream` unless told (`text/plain` for plain answer text). */
  contentType?: string;
}

/** The handle `profiler.stream()` returns: feed it the answer as it arrives. */
export interface PushHandle {
  /** `at`: when the chunk arrived (performance.now()), for a relay that hands it over later; now if not given. */
  chunk(data: string | ArrayBuffer | ArrayBufferView, at?: number): void;
  end(at?: number): void;
  error(error?: unknown, at?: number): void;
}

/** When a token was painted: between the start of the frame and the after-paint mark (ms). */
export interface PaintBracket {
  frame: number;
  painted: number;
}

export interface Spread {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

export interface StreamErrorInfo {
  /** `http`, `stream` (sent by the server in the body), `network`, `aborted`, `truncated`, `not-ended`, `empty-stream` (a 2xx stream with no event), `internal`. */
  kind: string;
  code: string | null;
  message: string | null;
}

/** One finished stream. Times are ms from the request start; `null` means unknown. */
export interface StreamReport {
  id: number;
  /** The share of streams profiled (`sampleRate × streamSampleRate`), to weigh reports merged from many pages. */
  sampleRate: number;
  /** The request URL without query string or fragment. */
  url: string;
  /** The detected or given format; `unknown` for JSON events of no known shape. */
  format: Exclude<Format, 'auto'> | 'unknown' | null;
  status: 'ok' | 'error' | 'aborted' | 'incomplete';
  error: StreamErrorInfo | null;
  httpStatus: number;
  /** performance.now() at the request start. */
  startTime: number;
  /** Response headers received. */
  headers: number | null;
  ttfb: number | null;
  /** Time to first chunk: the first event, whatever it carried (vLLM's benchmark TTFT, OpenTelemetry's `time_to_first_chunk`). */
  ttfc: number | null;
  /** Measured TTFT: arrival of the first chunk carrying answer content. */
  ttft: number | null;
  /** Measured E2E: arrival of the last content chunk. */
  e2e: number | null;
  /** Perceived TTFT: the first visible answer text painted. */
  ttftPerceived: PaintBracket | null;
  /** Perceived E2E: the last visible answer text painted. */
  e2ePerceived: PaintBracket | null;
  /** (E2E − TTFT) / (tokens − 1), over the timed answer only; null with fewer than two answer deltas. */
  tpot: number | null;
  /** Gaps between consecutive content chunks. */
  itl: Spread | null;
  /** Whose pace `tpot` and `itl` are: `buffer` when an intermediary released the arrivals together (then they are the buffer's pace, and `serverStepMs` the decoder's), `page-reads` when a blocked page read them together. */
  pace: { of: 'arrivals' | 'buffer' | 'page-reads'; serverStepMs: number | null } | null;
  /** Which clock stamped the arrivals (`page-read`: the page's JavaScript, on the main thread) and how late the page read what the browser had. */
  arrivals: {
    clock: 'page-read' | 'service-worker';
    /** The main thread's blocked time seen while the stream was open (null: the paint clock never ran). */
    blockedMs: number | null;
    /** Mean delay per delta of the page's late reads: measured with the arrival clock, else inferred from reads bunched after the main thread was blocked (null when the blocking could not be seen). */
    lateReadMs: number | null;
    lateReadGroups: number;
    /** The body's end read this long after the network's last byte (Resource Timing `responseEnd`). */
    endReadLateMs: number | null;
  } | null;
  /** Output tokens: from usage when the server sent it, else counted deltas. */
  tokens: number;
  tokensSource: 'usage' | 'counted';
  /** Why usage was not taken as the count of timed tokens: it was not sent, or it also counts tool calls, other choices, or unsplit reasoning. */
  tokensCountedBecause: 'no-usage' | 'tool-calls' | 'several-choices' | 'reasoning-not-split' | null;
  /** Content-bearing deltas received. */
  deltas: number;
  chars: number;
  /** Per-token records kept (`maxTokenDetail`); past the cap neighbouring records merge and ITL/lag percentiles come from a sketch (within 1%). */
  detail: { records: number; cap: number; decimated: boolean };
  bytes: number;
  chunks: number;
  usage: {
    promptTokens: number | null;
    completionTokens: number | null;
    reasoningTokens: number | null;
    cachedTokens: number | null;
  } | null;
  reasoning: { deltas: number; chars: number; first: number | null; last: number | null } | null;
  /** Refusal deltas (OpenAI `refusal`): timed with the answer, which they stand in for, and counted apart. */
  refusal: { deltas: number; chars: number; first: number | null; last: number | null } | null;
  toolCalls: number;
  /** Arrival of the first and the last tool-call delta. */
  toolCallSpan: { first: number; last: number } | null;
  /** With several choices (`n > 1`): the deltas of each; choice 0 is the answer shown. */
  choices: { index: number; deltas: number }[] | null;
  /** Why generation stopped, as the server said (`stop`, `length`, `end_turn`, …). */
  finishReason: string | null;
  /** Timings the server sent in the body (vLLM `metrics`, llama.cpp `timings`, Ollama durations), ms. */
  serverTimings: {
    queue: number | null;
    ttft: number | null;
    prefill: number | null;
    decode: number | null;
    itl: number | null;
    load: number | null;
    total: number | null;
  } | null;
  /** How the page put the text on screen. */
  delivery: {
    pattern: 'per-token' | 'throttled' | 'smoothed' | 'buffered-until-end' | 'partial';
    /** Throttled: the median interval between updates (ms). */
    interval: number | null;
    /** Smoothed: the reveal rate (characters per second). */
    rate: number | null;
  } | null;
  /** Waits with text arrived and nothing painted, longer than `threshold` ms. */
  stalls: { threshold: number; count: number; totalMs: number; longest: number | null; list: [number, number][] } | null;
  /** Late tokens and the long animation frames (and scripts) that overlapped them; null when nothing was painted. */
  latePaints?: {
    threshold: number;
    tokens: number;
    attributed: number | null;
    frames: {
      start: number;
      duration: number;
      blockingDuration: number;
      tokens: number;
      scripts: {
        invoker: string | null;
        invokerType: string | null;
        sourceURL: string | null;
        sourceFunctionName: string | null;
        duration: number;
      }[];
    }[];
  } | null;
  /** When the page was hidden during the stream; those samples are not in `lag`. */
  hidden: { intervals: number; ms: number; excludedSamples: number } | null;
  /** Where paint times come from: `raf` (the rAF + MessageChannel bracket). */
  paintSource?: 'raf' | null;
  /** The resolution of the page's timer (ms), measured when the profiler started; 1 in WebKit. */
  timerMs?: number | null;
  /** The phases of end-to-end latency, in order; `ms` and `source` are null when unknown. */
  phases: {
    name: 'queue' | 'prefill' | 'network' | 'decode' | 'intermediary' | 'client';
    ms: number | null;
    source: 'server' | 'client' | 'derived' | null;
    /** Why `ms` is null: the server sent no timings, its figure exceeds what the arrivals leave for it, too few deltas, no decode step known, not painted. */
    unknownBecause: 'no-server-timings' | 'needs-queue-and-prefill' | 'server-exceeds-arrivals' | 'too-few-deltas' | 'step-unknown' | 'not-painted' | 'last-delta-invisible' | null;
  }[] | null;
  /** What the phases add up to, and the part no known phase explains. */
  phasesTotal: { ms: number; of: 'e2ePerceived' | 'e2e'; unattributed: number } | null;
  /** Arrivals compared with steady decoding: what an intermediary held. */
  intermediary: {
    pattern: 'steady' | 'bursty' | 'all-at-once';
    heldMeanMs: number;
    heldFirstMs: number;
    heldLastMs: number;
    /** Null when nothing tells the decode step (every token in one read, no server timings). */
    stepMs: number | null;
    stepSource: 'server' | 'derived';
    tokensPerBurst: number;
    /** Who held what arrived together: an intermediary, or the page (reads bunched while its main thread was blocked). */
    heldBy: 'nothing' | 'intermediary' | 'page';
    /** Mean delay per token of the page's late reads. */
    lateReadMs: number;
    /** The server's decode span equals the page's: the first and last token were not held apart. */
    matchesServer: boolean;
  } | null;
  /** Which part is slow, most important first, with evidence and fix. */
  diagnosis: {
    verdict: string;
    evidence: Record<string, number | null>;
    fix: string;
    /** `insufficient-evidence`: what is missing (`dom`, `paint`, `matched`, `deltas`, `server-timings`). */
    missing?: string[];
    /** Buffering and stall verdicts: where it most likely is (a stall: `server` or `page`), and the response header that says so. */
    place?: 'server' | 'proxy' | 'cdn' | 'compression' | 'unknown' | 'page';
    placeHeader?: string | null;
  }[];
  /** Why no answer text was found on the page, when none was. */
  domReason: 'closed-shadow-root' | 'cross-origin-iframe' | 'not-found' | 'not-observed' | null;
  /** Where `startTime` comes from: the profiled request, Resource Timing (a tracked response), or the headers' arrival (TTFB and TTFT understated). */
  startSource: 'request' | 'resource-timing' | 'headers' | 'unknown';
  /** A stream that began before the module loaded: the page's text was read at `at`, and `tokens` commits carry that time rather than their own. */
  caughtUp: { at: number; tokens: number } | null;
  /** The stream's label, if any. */
  label: string | null;
  /** What carried the stream to the page. */
  transport: 'fetch' | 'xhr' | 'eventsource' | 'websocket' | 'socket.io' | 'push';
  /** For an EventSource reconnect: the last event id the stream resumed from. */
  resumedFrom: string | null;
  /** Ratings of the headline metrics. */
  ratings?: Partial<Record<RatedMetric, Rating | null>>;
  /** The browser's Resource Timing entry for the request (ms from start; null unknown). */
  resourceTiming?: {
    startTime: number | null;
    dns: number | null;
    connect: number | null;
    requestStart: number | null;
    responseStart: number | null;
    responseEnd: number | null;
    /** Waiting in the browser before the request was sent, less DNS and connection set-up. */
    browserQueue: number | null;
    protocol: string | null;
    serverTiming: { name: string; dur: number; desc: string | null }[];
  } | null;
  /** Only with `includeText: true`. */
  text?: string;
  reasoningText?: string;
  /** Delivery lag per token: painted − arrived. */
  lag: Spread | null;
  /** Most characters arrived but not yet painted at any moment; null when the page was not read or nothing was painted. */
  backlogPeak: number | null;
  /** Share of the arrived visible answer text found on screen, 0–100. */
  matchedPct: number | null;
  doneMarker: boolean;
  truncated: boolean;
  malformed: { events: number; first: string | null; framing: string | null } | null;
  /** What could not be measured: `format`, `dom`, `paint`, `usage`, `long-animation-frame`. */
  unavailable: string[];
  /** Per token (ms from start; null unknown). Absent with `timeline: false`. */
  timeline?: {
    arrived: (number | null)[];
    committed: (number | null)[];
    frame: (number | null)[];
    painted: (number | null)[];
    chars: number[];
    /** Deltas each record stands for: only once `detail.decimated`. */
    count?: number[];
  };
}

/** The figures a failed report cannot know (tokenpaint itself failed: nothing was measured). */
type UnknownWhenFailed = Exclude<
  keyof StreamReport,
  'id' | 'sampleRate' | 'url' | 'transport' | 'status' | 'error' | 'diagnosis' | 'unavailable' | 'latePaints' | 'ratings' | 'resourceTiming' | 'paintSource' | 'timerMs' | 'text' | 'reasoningText' | 'timeline'
>;

/** tokenpaint itself failed during the stream (the app was unaffected): every figure is null. */
export type FailedReport = {
  id: number;
  sampleRate: number;
  url: string;
  transport: StreamReport['transport'];
  status: 'failed';
  error: StreamErrorInfo;
  diagnosis: StreamReport['diagnosis'];
  unavailable: string[];
} & { [K in UnknownWhenFailed]: null };

/** A report: a stream's, or (when tokenpaint failed) one that says so. */
export type Report = StreamReport | FailedReport;

export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

/** Percentiles over a group of finished streams (latency figures from streams with status `ok`). */
export type SummaryGroup = {
  count: number;
  streams: { ok: number; error: number; aborted: number; incomplete: number };
  slo: { metric: SummaryMetric; quantile: number; max: number; value: number | null; holds: boolean | null }[];
  /** Streams that met every target; streams not `ok` count as missed (`notOk` of them). */
  goodput: { met: number; of: number; share: number; notOk: number } | null;
  diagnosis: { verdict: 'capacity' | 'tail' | 'client-tail'; evidence: Record<string, number | null>; fix: string }[];
  /** Streams by the headline verdict (the first) their reports gave. */
  verdicts: Record<string, number>;
  /** Tokens painted late, over the streams (as their reports' `latePaints.tokens`). */
  latePaintTokens: number;
} & Record<SummaryMetric, Percentiles>;

/** The summary: overall, and by format, URL and label. */
export type Summary = SummaryGroup & {
  /** The sample rate the counts are in units of (the profiler's own, or the highest merged in). */
  sampleRate: number;
  /** Summaries sampled at different rates were merged in: counts of the lower-rate ones were weighted up by the ratio of the rates. */
  weighted: boolean;
  by: { format: Record<string, SummaryGroup>; url: Record<string, SummaryGroup>; label: Record<string, SummaryGroup> };
};

/** An open stream so far (`onProgress`): read from the records its report will be made of. Times are ms from the request start; null is unknown. */
export interface Progress {
  /** The stream's report id to be. */
  id: number;
  url: string;
  /** When, from the request start (the frame's after-paint time). */
  t: number | null;
  /** Characters of answer text arrived. */
  arrived: number;
  /** Characters of it painted; null where tokenpaint does not watch the page or cannot take paints. */
  painted: number | null;
  /** arrived − painted (null as `painted`). */
  backlog: number | null;
  ttft: number | null;
  ttftPerceived: number | null;
  /** The lag of the last painted token. */
  lag: number | null;
  /** How long the oldest visible text not yet painted has waited (0 when none waits; null as `painted`). */
  waiting: number | null;
  /** The body has ended (the report waits for the last paints). */
  ended: boolean;
}

export declare const DEFAULTS: Readonly<Required<Omit<ProfilerOptions, 'fetch'>>>;

export declare class Profiler {
  constructor(options?: ProfilerOptions);
  /** The sample rate in use (0 to 1). */
  readonly sampleRate: number;
  /** The share of this page's streams profiled (0 to 1). */
  readonly streamSampleRate: number;
  /** Whether this page load is profiled. */
  readonly sampled: boolean;
  /** Resolves to the profiler (null when unsampled). */
  readonly ready: Promise<Profiler | null>;
  /** A drop-in fetch (bound: pass it to SDKs as `fetch: profiler.fetch`). */
  readonly fetch: typeof globalThis.fetch;
  /** Watches the element in which the app renders answers, and the open shadow roots in it. Any order, any number of times. */
  observe(element: Element): void;
  /** Stops watching one element. */
  unobserve(element: Element): void;
  /** Disconnects for good (observers, paint clock, exporter). */
  close(): void;
  /** Profiles a response fetched by other means; read the returned response, not the original. */
  track(response: Response, options?: TrackOptions): Response;
  /** Profiles an XMLHttpRequest (before `send()`), an EventSource, a WebSocket or a socket.io-client Socket; returns it unchanged. */
  track<T extends XMLHttpRequest | EventSource | WebSocket | SocketIoLike>(transport: T, options?: TransportOptions): T;
  /** A push handle for any other transport. */
  stream(options?: PushOptions): PushHandle;
  /** Profiles every fetch, XMLHttpRequest, EventSource and WebSocket whose URL matches; returns the undo. */
  instrument(options?: InstrumentOptions): () => void;
  /** Called once per finished stream, after its last paint. Returns an unsubscribe function. */
  onReport(callback: (report: Report) => void): () => void;
  /** Called for each open stream with its figures so far, after a painted frame, every 100 ms at most (nothing is done for it without a subscriber). Returns an unsubscribe function. */
  onProgress(callback: (progress: Progress) => void): () => void;
  /** Called for each headline metric of each finished stream. Returns an unsubscribe function. */
  onMetric(callback: (metric: Metric) => void): () => void;
  /** A fetch whose streams carry `label`. */
  labeled(label: string): typeof globalThis.fetch;
  /** The summary in a compact form that `mergeSummary` reads back exactly (null without the core). */
  exportSummary(): string | null;
  /** Merges an exported summary; false if it could not be read. */
  mergeSummary(exported: string): boolean;
  reports(): Report[];
  summary(): Summary | null;
  /** Logs the last report and the summary to the console; returns the text. */
  print(): string;
  /** Sends what the OTLP exporter has batched now. */
  flush(): Promise<unknown>;
  disconnect(): void;
}
