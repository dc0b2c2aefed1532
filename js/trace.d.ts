import type { Report } from './report.js';

/** A trace in the Trace Event Format (JSON object form), for Perfetto UI and the Chrome Performance panel. */
export interface Trace {
  traceEvents: Array<{ name: string; ph: 'X' | 'i' | 'C' | 'M'; pid: number; tid: number; ts?: number; dur?: number; s?: 'g' | 'p' | 't'; cat?: string; args?: Record<string, unknown> }>;
  displayTimeUnit: 'ms';
  otherData: { source: 'tokenpaint'; streams: number };
}

/** The trace of a report or reports: a track per stream with its phases, stalls, first token and character counters. */
export declare function traceOf(reports: Report | Report[]): Trace;
