import type { Report, StreamReport, Summary } from './report.js';

/** A stream's timeline as a profiler with `saveTimeline: true` saved it in its report (`report.saved`; docs/timeline.md). */
export type SavedTimeline = NonNullable<StreamReport['saved']>;

/** Why a saved timeline could not be analysed. */
export type AnalyseError = 'saved-timeline-malformed' | 'not-a-saved-timeline' | 'saved-timeline-newer-version' | 'internal';

/** A saved timeline analysed again: the report, or why there is none. */
export type Analysed = { report: Report; error: null } | { report: null; error: AnalyseError };

/** Saved timelines analysed again by this build, and the summary of those it analysed. */
export interface Analyst {
  /** A report with `saved`, the saved timeline, or its JSON, analysed again. */
  analyse(saved: Report | SavedTimeline | string): Analysed;
  /** Percentiles over the streams analysed (a profiler's `summary()` shape). */
  summary(): Summary;
  /** The summary in the compact form `mergeSummary` (here or in a profiler) reads. */
  exportSummary(): string;
  /** Merges an exported summary; false if it does not read. */
  mergeSummary(exported: string): boolean;
  /** Frees the analyst. */
  close(): void;
}

/** Loads the analysis module once (in Node, from disk next to this file; else fetched), or from `input`. */
export declare function load(input?: URL | string | Response | BufferSource | WebAssembly.Module): Promise<void>;

/** An analyst; `slo` and `sampleRate` as a profiler's options, for its summary. */
export declare function createAnalyst(options?: { slo?: Record<string, Record<string, number>>; sampleRate?: number; wasm?: URL | string | Response | BufferSource | WebAssembly.Module }): Promise<Analyst>;

/** One saved timeline analysed again. */
export declare function analyse(saved: Report | SavedTimeline | string): Promise<Analysed>;
