// Generated from src/words.json by scripts/words.mjs: do not edit.

// How a stream's body ended: the code the shell passes to the core (`Core.end`).
/** The body was read to its end. */
export const END_COMPLETE = 0;
/** The application (or an AbortSignal) cancelled it. */
export const END_ABORTED = 1;
/** The network failed mid-stream. */
export const END_FAILED = 2;

// Why the answer's element could not be read: the code the shell passes to the core
// (`Core.dom_reason`), whose report names it.
/** `closed-shadow-root`: the answer is likely inside a closed shadow root. */
export const UNSEEN_CLOSED_SHADOW_ROOT = 0;
/** `cross-origin-iframe`: an iframe there cannot be read. */
export const UNSEEN_CROSS_ORIGIN_IFRAME = 1;
/** `not-observed`: no element was observed. */
export const UNSEEN_NOT_OBSERVED = 2;
/** `not-found`: no element showed the answer's text. */
export const UNSEEN_NOT_FOUND = 3;
