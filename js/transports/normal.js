// Letters and digits only, lower case: what survives any renderer's markup and spacing. The one
// comparison of texts the learner (learn.js) and the ask (asks.js) make.

const NOT_TEXT = /[^\p{L}\p{N}]+/gu;

/** @param {unknown} text */
export function normal(text) {
  return String(text).toLowerCase().replace(NOT_TEXT, '');
}
