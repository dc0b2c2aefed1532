// Generated from src/options.json by scripts/options.mjs: do not edit.
import type { Format } from './index.js';
import type { RatedMetric, SloMetric } from './report.js';

/** The options of `new Profiler(options)` (docs/options.md). */
export interface ProfilerOptions {
  /** One of the [formats](formats.md), or `auto`: chosen from the content type, headers and the first event (default: 'auto'). */
  format?: Format;
  /** The fetch to wrap (default: global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Stamp arrivals off the main thread with the service worker `tokenpaint/arrival-sw.js`, which the app serves and registers (see [Arrival against read](report.md#arrival-against-read)) (default: false). */
  arrivalClock?: boolean;
  /** After the stream ends, how long the page must stay quiet before a report is taken even though some text was never painted (default: 1000). */
  settleMs?: number;
  /** The longest wait after the end of the stream (default: 30000). */
  maxSettleMs?: number;
  /** A stream with no chunk for this long (the app stopped reading without cancelling) is reported `incomplete`; its bytes still flow to the app (default: 120000). */
  idleMs?: number;
  /** Include the per-token arrays in reports (default: true). */
  timeline?: boolean;
  /** Put the stream's timeline in reports (`saved`), in a versioned form that a newer tokenpaint analyses again, in Node (`tokenpaint/analyse`) or in the lab (see [Saved timelines](timeline.md)); it holds no content unless `includeText` is on (default: false). */
  saveTimeline?: boolean;
  /** How many reports `reports()` keeps (default: 1000). */
  maxReports?: number;
  /** Put the answer and reasoning text in reports (`text`, `reasoningText`); off by default, reports carry no content (default: false). */
  includeText?: boolean;
  /** Text waiting with no paint for longer than this is a stall (default: 100). */
  stallMs?: number;
  /** Per-token records kept per stream (at least 64). Past it neighbouring records merge, so memory stays bounded however long the answer (see `detail` in [the report](report.md)) (default: 8192). */
  maxTokenDetail?: number;
  /** A token painted more than this after it arrived is late, and is attributed to long animation frames (default: 50). */
  lateMs?: number;
  /** Add `performance.measure` entries per phase on a "tokenpaint" track of the DevTools Performance panel (default: false). */
  devtools?: boolean;
  /** `{ url, headers, serviceName, maxBatch, intervalMs, propagate, useGlobal, provider, model, operation }`: OpenTelemetry export (the page's SDK, or a collector at `url`) and trace propagation; see [exporters.md](exporters.md) (default: none). */
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
  /** A label for every stream of this profiler (see `labeled()` for one per fetch) (default: ''). */
  label?: string;
  /** Targets, e.g. `{ ttftPerceived: { p95: 1000 }, tpot: { p50: 50 } }`: the summary says which hold and the goodput (default: none). */
  slo?: Partial<Record<SloMetric, Record<string, number>>>;
  /** `[good up to, poor above]` in ms per metric, for ratings (default: THRESHOLDS). */
  thresholds?: Partial<Record<RatedMetric, [number, number]>>;
  /** The share of page loads profiled, 0 to 1, drawn once per page load: an unsampled profiler loads no wasm, observes nothing and hands back responses untouched. Reports and summaries carry it (see [production.md](production.md)) (default: 1). */
  sampleRate?: number;
  /** The share of streams profiled on a sampled page, 0 to 1, each stream drawn on its own: a stream left out is not wrapped and makes no report. Reports and summaries carry `sampleRate × streamSampleRate` (default: 1). */
  streamSampleRate?: number;
  /** Read the chat apps whose protocols tokenpaint knows (Open WebUI's Socket.IO `events`, Gradio's `queue/data`) with their readers; `false`: their answers are learned from the page, as any unknown app's (see [Any chat page, no code](../README.md#any-chat-page-no-code-the-browser-extension)) (default: true). */
  appReaders?: boolean;
  /** An answer read in the shell (a socket's, a learned one) on a socket or stream that stays open ends once nothing more came on its path and its element did not change for this long; its end is then its last event's arrival (`read.end: 'quiet'`) (default: 1000). */
  quietMs?: number;
  /** `(response) => ({ queue, prefill, decode })`: your own mapping of your server's headers to timings (ms) (default: none). */
  serverTiming?: (response: Response) => { queue?: number; prefill?: number; decode?: number; ttft?: number; total?: number; load?: number } | null | undefined;
}

/** Default options (all but `fetch`, the global fetch at construction). */
export declare const DEFAULTS: Readonly<Required<Omit<ProfilerOptions, 'fetch'>>>;

/** The keys of the core's configuration, as the shell writes them. */
export declare const CONFIG_KEYS: readonly string[];

/** The core's configuration (src/streams.rs `Config`; each key's meaning in src/options.json `config`): its values as the shell gives them. */
export interface CoreConfig {
  stall: number;
  detail: number;
  slo: string;
  late: number;
  longFrames: boolean;
  eventTiming: boolean;
  paint: boolean;
  thresholds: string;
  timer: number;
  noDevtoolsTrack: boolean;
  sampleRate: number;
}

/** The core's configuration as one value: a `key=value` line for each key given. */
export declare function configText(values: Partial<CoreConfig>): string;

/** The Resource Timing entry's fields, in the order `Core.resource` takes them. */
export declare const RESOURCE_FIELDS: readonly string[];

/** `Core.render`'s result: committed + resume × the resume limit, or `whole` (the whole text). */
export declare const RENDER: Readonly<{ resume: number; whole: number }>;
