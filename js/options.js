// Generated from src/options.json by scripts/options.mjs: do not edit.
import { THRESHOLDS } from './ratings.js';

/** Default options. */
export const DEFAULTS = Object.freeze({
  format: 'auto',
  arrivalClock: false,
  settleMs: 1000,
  maxSettleMs: 30000,
  idleMs: 120000,
  timeline: true,
  saveTimeline: false,
  maxReports: 1000,
  includeText: false,
  stallMs: 100,
  maxTokenDetail: 8192,
  lateMs: 50,
  devtools: false,
  otlp: null,
  label: '',
  slo: null,
  thresholds: THRESHOLDS,
  sampleRate: 1,
  streamSampleRate: 1,
  appReaders: true,
  quietMs: 1000,
  serverTiming: null,
});

/** The keys of the core's configuration (src/streams.rs `Config`), as the shell writes them. */
export const CONFIG_KEYS = Object.freeze(["stall","detail","slo","late","longFrames","eventTiming","paint","thresholds","timer","noDevtoolsTrack","sampleRate"]);

/**
 * The core's configuration as one value (`Core.configure`): a `key=value` line for each key
 * given, its value as declared (a number as JavaScript writes it, a flag 1 or 0, a text on one line).
 * @param {Partial<import('./options.js').CoreConfig>} values
 */
export const configText = (values) =>
  Object.entries(values)
    .map(([k, v]) => `${k}=${typeof v === 'boolean' ? +v : String(v).replace(/\n/g, ' ')}`)
    .join('\n');

/** The Resource Timing entry's fields, in the order `Core.resource` takes them. */
export const RESOURCE_FIELDS = Object.freeze(["startTime","domainLookupStart","domainLookupEnd","connectStart","connectEnd","requestStart","responseStart","responseEnd"]);

/** `Core.render`'s result: committed + resume × the resume limit, or `whole` (the whole text). */
export const RENDER = Object.freeze({"resume":4294967296,"whole":-1});
