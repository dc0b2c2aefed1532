// Takes out of wasm-bindgen's generated glue what no engine tokenpaint runs in can reach, so that
// pages do not download it (scripts/build.sh runs this on both modules' glue):
// - the warnings for initialization called the deprecated way (a bare module or path): the
//   shell (js/core/wasm.js) always passes an object, and nothing else calls the glue;
// - the polyfill of TextEncoder.encodeInto: every engine with the ES2022 the shell needs
//   (docs/browsers.md) has it (Chromium 74, Firefox 66, Safari 14.1);
// - and it says in fewer words that the wasm is not served as application/wasm.
// A pattern that no longer matches (another wasm-bindgen) fails the build rather than ship
// the glue untrimmed unnoticed.
import { readFileSync, writeFileSync } from 'node:fs';

const CUTS = [
  [/console\.warn\('using deprecated parameters for `initSync\(\)`; pass a single object instead'\)/, ''],
  [/console\.warn\('using deprecated parameters for the initialization function; pass a single object instead'\)/, ''],
  [/\nif \(!\('encodeInto' in cachedTextEncoder\)\) \{\n(?: {4}.*\n| {8}.*\n)*?\}\n/, '\n'],
  // The warning when the wasm is not served as application/wasm, in fewer words: what is wrong,
  // what it costs, and the browser's own error.
  [/console\.warn\("`WebAssembly\.instantiateStreaming` failed because your server does not serve Wasm with `application\/wasm` MIME type\. Falling back to `WebAssembly\.instantiate` which is slower\. Original error:\\n", e\)/, 'console.warn("tokenpaint: serve the .wasm as application/wasm (it compiles slower so):", e)'],
];

for (const file of process.argv.slice(2)) {
  let text = readFileSync(file, 'utf8');
  for (const [pattern, by] of CUTS) {
    if (!pattern.test(text)) throw new Error(`${file}: the glue no longer has ${pattern}; update scripts/trim-glue.mjs`);
    text = text.replace(pattern, by);
  }
  writeFileSync(file, text);
}
