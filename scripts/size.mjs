// Prints the size of what a page downloads: the wasm module and the JavaScript (wasm-bindgen
// glue + the shell), raw and gzip.
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(path.join(root, p));
const wasm = read('pkg/tokenpaint_core_bg.wasm');
const js = Buffer.concat([
  read('pkg/tokenpaint_core.js'),
  ...readdirSync(path.join(root, 'js'))
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => read(`js/${f}`)),
]);
const row = (name, b) => {
  const gz = gzipSync(b, { level: 9 }).length;
  const br = brotliCompressSync(b).length;
  return { name, raw: b.length, gzip: gz, brotli: br };
};
const rows = [row('wasm', wasm), row('js (glue + shell)', js), row('total', Buffer.concat([wasm, js]))];
rows[2].gzip = rows[0].gzip + rows[1].gzip;
rows[2].brotli = rows[0].brotli + rows[1].brotli;
const w = (s, n) => String(s).padStart(n);
console.log(`${'size'.padEnd(20)}${w('raw', 10)}${w('gzip', 10)}${w('brotli', 10)}`);
for (const r of rows) console.log(`${r.name.padEnd(20)}${w(r.raw, 10)}${w(r.gzip, 10)}${w(r.brotli, 10)}`);
export default rows;
