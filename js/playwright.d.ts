import type { StreamReport, Report } from './report.js';

/** What `attach` gives: the page's reports as they come. */
export interface Attached {
  /** The next report not yet taken, within `timeout` ms (default: attach's). */
  next(timeout?: number): Promise<Report>;
  /** Every report so far. */
  reports(): Report[];
  /** `{ status: 'on' | 'blocked', why }` once the page said, else null. */
  status(): { status: 'on' | 'blocked'; why?: string } | null;
  /** The CPU throttle asked for (`applied: false`, with `why`, where the browser cannot), or null. */
  throttle: { rate: number; applied: boolean; why?: string } | null;
}

export interface AttachOptions {
  /** The test's TestInfo: each report is attached to it (JSON, its chart as SVG, its trace). */
  testInfo?: { attach(name: string, o: { body: string | Buffer; contentType: string }): Promise<void> } | null;
  /** How long `next()` waits by default, ms (30,000). */
  timeout?: number;
  /** The profiler's options, as `new Profiler(options)` takes them (e.g. `{ appReaders: false }`). */
  options?: Record<string, unknown> | null;
  /** Run the page as a slow device: 4 is four times slower, as Chrome's DevTools throttle (Chromium only). */
  cpuThrottle?: number | null;
}

/** Profiles the streamed answers of a Playwright page (call before it navigates). */
export declare function attach(page: unknown, options?: AttachOptions): Promise<Attached>;

/** Upper bounds in ms, the lowest share matched (default 99), verdicts that fail it. */
export interface Budget {
  ttft?: number;
  ttftPerceived?: number;
  e2ePerceived?: number;
  lagP50?: number;
  lagP95?: number;
  tpot?: number;
  /** The longest freeze (`stalls.longest`; 0 when the answer was painted without one). */
  freeze?: number;
  /** The user's longest interaction while the answer streamed (0 without any; unknown without Event Timing). */
  inputDuration?: number;
  matched?: number;
  forbid?: string[];
}

/** Checks a report against a budget; an unknown figure fails its budget. */
export declare function checkBudget(report: Report, budget?: Budget): { pass: boolean; failures: string[]; verdict: StreamReport['diagnosis'][number] | null };

/** Matchers for Playwright's `expect.extend`: `expect(report).toMeetBudget(budget)`. */
export declare const budgets: { toMeetBudget(report: Report, budget: Budget): { pass: boolean; name: string; message: () => string } };

/** A report's arrived/committed/painted chart as SVG. */
export declare function chartSvg(report: Report): string;

/** What `backgroundLoad` counted. */
export interface LoadStats {
  /** Streams kept open. */
  streams: number;
  /** Requests sent. */
  started: number;
  /** Answers read to their end. */
  done: number;
  /** Requests that failed (an error status, or no answer). */
  failed: number;
  /** Bytes read. */
  bytes: number;
}

/**
 * Background streams made from Node, off the page (as a load generator makes them): `concurrency`
 * streams (at most `cap`, 16 by default, and 64) each send `init` to `url`, read the answer to its
 * end and send again, until `stop()` or `maxMs` (10 minutes).
 */
export declare function backgroundLoad(options: { url: string | URL; init?: RequestInit; concurrency?: number; cap?: number; maxMs?: number }): { stop(): Promise<LoadStats>; stats(): LoadStats };
