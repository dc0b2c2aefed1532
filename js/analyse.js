// tokenpaint/analyse: saved timelines analysed again by this build, in Node or a page (the lab),
// off the page that profiled them. A profiler with `saveTimeline: true` puts each stream's
// timeline in its report (`report.saved`, docs/timeline.md); analysed again, it gives the report
// that page had, with today's figures and diagnosis, and a fleet's streams give one summary.
//
//   import { createAnalyst } from 'tokenpaint/analyse';
//   const analyst = await createAnalyst();
//   for (const r of reports) {
//     const { report, error } = analyst.analyse(r.saved);
//   }
//   analyst.summary();
//
// The analysis module (pkg/analyse/) holds the figures, the diagnosis and the summary, and none
// of what reads a stream or watches a page; pages never load it.

import initAnalysis, { Analyst, __tokenpaint_reinstantiate as reinstantiate } from '../pkg/analyse/tokenpaint_analyse.js';
import { assembleFigures, assembleRead } from './core/assemble.js';
import { sloSpec } from './ratings.js';
import { configText } from './options.js';

const WASM = new URL('../pkg/analyse/tokenpaint_analyse_bg.wasm', import.meta.url);

/** @type {Promise<void> | null} */
let loading = null;
// Each recovery from a trap starts a new generation: analysts of an older one are gone.
let generation = 0;

/**
 * Loads the analysis module once: from `input` (a URL, a Response, bytes or a
 * WebAssembly.Module), else from next to this file (read from disk in Node).
 * @param {any} [input]
 * @returns {Promise<void>}
 */
export function load(input) {
  if (!loading) {
    const started = (async () => {
      let source = input;
      if (source === undefined && WASM.protocol === 'file:') {
        const { readFile } = await import('node:fs/promises');
        source = await readFile(WASM);
      }
      await initAnalysis({ module_or_path: source === undefined ? WASM : source });
    })();
    started.catch(() => {
      loading = null;
    });
    loading = started;
  }
  return loading;
}

/**
 * The saved timeline's text and what the page told, from a report (`saved`), a saved timeline
 * (an object or its JSON), or null when it is none.
 * @param {any} saved
 * @returns {{ text: string, page: any } | null}
 */
function savedOf(saved) {
  let v = saved;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return { text: saved, page: null };
    }
  }
  if (v && typeof v === 'object' && v.saved && typeof v.saved === 'object') v = v.saved;
  if (!v || typeof v !== 'object') return null;
  return { text: JSON.stringify(v), page: v.page && typeof v.page === 'object' ? v.page : null };
}

/** What a saved timeline without the page's part is assembled with: nothing the page told. */
const NO_PAGE = { sampleRate: null, scripts: [], longFrames: false, ownRoot: null, entry: null, element: null, read: null };

/**
 * An analyst: saved timelines analysed again, and the summary of those it analysed.
 * @param {{ slo?: Record<string, Record<string, number>>, sampleRate?: number, wasm?: any }} [options]
 */
export async function createAnalyst(options = {}) {
  await load(options.wasm);
  const config = configText({ slo: sloSpec(options.slo), sampleRate: Number.isFinite(options.sampleRate) ? /** @type {number} */ (options.sampleRate) : 1 });
  let born = generation;
  let core = new Analyst();
  core.configure(config);
  // A trap leaves the module unusable: a fresh instance, and a fresh analyst on it (the summary
  // so far is lost, and says so by its count).
  /**
   * @template T, F
   * @param {(core: Analyst) => T} f
   * @param {F} fallback
   * @returns {T | F}
   */
  const guarded = (f, fallback) => {
    try {
      if (born !== generation) throw new Error('gone');
      return f(core);
    } catch {
      try {
        if (born === generation) {
          generation++;
          reinstantiate();
        }
        born = generation;
        core = new Analyst();
        core.configure(config);
      } catch {
        /* the next call tries again */
      }
      return fallback;
    }
  };
  return {
    /**
     * A saved timeline (a report with `saved`, the `saved` object, or its JSON) analysed again:
     * `{ report }`, or `{ error }` when it cannot be read (`saved-timeline-malformed`,
     * `not-a-saved-timeline`, `saved-timeline-newer-version`, `internal`).
     * @param {unknown} saved
     */
    analyse(saved) {
      const s = savedOf(saved);
      if (!s) return { report: null, error: 'not-a-saved-timeline' };
      const json = guarded((c) => c.analyse(s.text), null);
      if (json === null) return { report: null, error: 'internal' };
      if (!json.startsWith('{')) return { report: null, error: json };
      const report = JSON.parse(json);
      const page = s.page || NO_PAGE;
      assembleFigures(report, page);
      assembleRead(report, page);
      return { report, error: null };
    },
    /** Percentiles over the streams analysed (the profiler's `summary()` shape). */
    summary() {
      return JSON.parse(guarded((c) => c.summary(), '{"count":0}'));
    },
    /** The summary in the compact form `mergeSummary` (here or in a profiler) reads. */
    exportSummary() {
      return guarded((c) => c.export_summary(), '');
    },
    /**
     * Merges an exported summary (a profiler's, or another analyst's); false if it does not read.
     * @param {unknown} exported
     */
    mergeSummary(exported) {
      return typeof exported === 'string' && guarded((c) => c.merge_summary(exported), false);
    },
    /** Frees the analyst. */
    close() {
      guarded((c) => c.free(), undefined);
    },
  };
}

/**
 * One saved timeline analysed again (see `createAnalyst`).
 * @param {any} saved
 */
export async function analyse(saved) {
  const a = await createAnalyst();
  try {
    return a.analyse(saved);
  } finally {
    a.close();
  }
}
