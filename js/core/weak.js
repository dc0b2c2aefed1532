// Formats whose reader finds no answer of its own in the stream: where the profiler only guessed
// that a stream carries an answer, the page decides (learning.js). A leaf module: the eager side
// (learners.js, stream.js) and the learning chunk both read it, and neither imports the other.
export const WEAK = new Set(['', 'sse-text', 'text', 'json', 'unknown']);
