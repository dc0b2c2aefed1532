// tokenpaint/lazy: a stub of under 2 KB gzip that samples page loads and loads the profiler
// (its JS and the wasm) when the page is idle or at the first stream.
import type { Profiler, ProfilerOptions } from './index.js';

/** The profiler's API; before it has loaded, calls are replayed once it is there. */
export type LazyProfiler = Pick<
  Profiler,
  | 'fetch' | 'observe' | 'unobserve' | 'close' | 'track' | 'stream' | 'instrument' | 'onReport' | 'onMetric' | 'onProgress' | 'labeled'
  | 'exportSummary' | 'mergeSummary' | 'reports' | 'summary' | 'print' | 'flush' | 'disconnect' | 'sampleRate' | 'sampled'
> & {
  /** Resolves to the loaded profiler, or null when unsampled or when it could not load. */
  readonly ready: Promise<Profiler | null>;
};

/** A profiler for this page load, sampled at `options.sampleRate` (default 1). */
export declare function start(options?: ProfilerOptions): LazyProfiler;
