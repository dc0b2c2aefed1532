// The report, summary and progress types are generated from src/types.rs (js/report.d.ts).
import type { Report, Summary, Progress } from './report.js';
import type { ProfilerOptions } from './options.js';
export * from './report.js';

/** Loads the WebAssembly core (once). `input` overrides where the .wasm comes from. */
export default function init(
  input?: string | URL | Request | Response | BufferSource | WebAssembly.Module,
): Promise<void>;

/** Bytes of wasm linear memory (it grows, never shrinks), or null before `init()`. */
export declare function wasmMemoryBytes(): number | null;

/** A stream format tokenpaint reads, or `auto` to detect it (generated from src/words.json). */
export type { Format } from './words.js';
import type { Format } from './words.js';

export type { ProfilerOptions } from './options.js';

// Generated from the core's own lists (scripts/schema.mjs): never written by hand.
export type { RatedMetric, SummaryMetric, SloMetric } from './report.js';
import type { RatedMetric } from './report.js';
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

export { DEFAULTS } from './options.js';

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
  /** Watches the element in which the app renders answers, and the open shadow roots in it; with no element (or `document`), the whole document, each stream's element found around the changes. Any order, any number of times. */
  observe(element?: Element | Document): void;
  /** Stops watching one element (the document with none). */
  unobserve(element?: Element | Document): void;
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
