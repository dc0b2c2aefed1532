// Generated from src/words.json by scripts/words.mjs: do not edit.

/**
 * Formats whose reader finds no answer of its own, and `''` (not known yet): where the profiler
 * only guessed that a stream carries an answer, the page decides (js/core/learning.js).
 */
export const WEAK = new Set(['', 'sse-text', 'text', 'json', 'unknown']);
