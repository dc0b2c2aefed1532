// What a page would load before its first report, were the module split at the report
// (npm run size:floor). The page's wasm is built three ways, each optimized as scripts/build.sh
// does and measured gzip (level 9), side by side in one run:
//   whole: the page's module as shipped;
//   live: the stream's part alone, what a page needs while text streams: a stream's end writes
//     only its saved timeline (src/saved.rs, the form a second module would analyse), and the
//     figures, the report's JSON, the diagnosis and the summary are cut, so the linker drops them;
//   live, one format: the same, reading OpenAI chat and plain text only (the readers of the
//     other eight formats cut).
// With pkg/analyse/ built, the whole such a split would load is given too.
// The JavaScript is the eager bundle of `tokenpaint` (as npm run size measures it), whole and
// without the verdict catalog's words (js/verdicts.js), which only a report needs.
// The cuts are the crate's own measurement features (`floor-live`, `floor-one-format` in
// Cargo.toml), so the compiler holds them to the sources: nothing here edits a source file.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { build } from 'esbuild';
import { BUDGET, bundleOptions, chunks } from './size.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const gzip = (/** @type {Uint8Array} */ b) => gzipSync(b, { level: 9 }).length;

/**
 * Builds the page's module with the crate's `features` (the measurement ones added to `module`),
 * optimized with the shipped module's passes (scripts/wasm-opt.sh; the whole's size is checked
 * against pkg/'s below).
 * @param {string[]} features
 */
function wasmOf(features) {
  const target = path.join(root, 'target/floor');
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-floor-'));
  // The cuts leave readers unused: the compiler's warnings are shown only when a step fails.
  const run = (/** @type {string} */ cmd, /** @type {string[]} */ args) => {
    try {
      execFileSync(cmd, args, { cwd: root, stdio: 'pipe', env: { ...process.env, CARGO_TARGET_DIR: target } });
    } catch (e) {
      process.stderr.write(String(/** @type {{ stderr?: Buffer }} */ (e).stderr ?? ''));
      throw e;
    }
  };
  run('cargo', ['build', '-q', '--release', '--target', 'wasm32-unknown-unknown', '--lib', '--features', ['module', ...features].join(',')]);
  const out = path.join(dir, 'out');
  run('wasm-bindgen', ['--target', 'web', '--out-dir', out, '--out-name', 'tokenpaint_core', path.join(target, 'wasm32-unknown-unknown/release/tokenpaint.wasm')]);
  const w = path.join(out, 'tokenpaint_core_bg.wasm');
  run('bash', ['-c', 'source scripts/wasm-opt.sh && optimize "$1"', 'wasm-opt', w]);
  const bytes = readFileSync(w);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/** The eager bundle of js/index.js as npm run size measures it; `catalog` false replaces js/verdicts.js by empty words. @param {boolean} catalog */
async function jsOf(catalog) {
  /** @type {import('esbuild').Plugin} */
  const noCatalog = {
    name: 'no-catalog',
    setup(b) {
      b.onLoad({ filter: /[\\/]js[\\/]verdicts\.js$/ }, () => ({ contents: 'export const FIXES={},TITLES={},NAMES_SCRIPT=[];export function withFixes(d){return d}', loader: 'js' }));
    },
  };
  const entry = 'js/index.js';
  return chunks(await build({ ...bundleOptions(entry), plugins: catalog ? [] : [noCatalog] }), entry).eager;
}

/**
 * The sizes above, gzip bytes, side by side in one run.
 * @returns {Promise<{ whole: number, live: number, one: number, js: number, jsLive: number, least: number, split: number | null, drift: boolean }>}
 */
export async function floor() {
  const whole = gzip(wasmOf([]));
  const live = gzip(wasmOf(['floor-live']));
  const one = gzip(wasmOf(['floor-live', 'floor-one-format']));
  const js = gzip(await jsOf(true));
  const jsLive = gzip(await jsOf(false));
  // Split at the report, the rest would be the analysis module's (pkg/analyse/, which reads
  // the saved timeline the live part writes): what such a page would load in all.
  const analysis = path.join(root, 'pkg/analyse/tokenpaint_analyse_bg.wasm');
  const split = existsSync(analysis) ? live + gzip(readFileSync(analysis)) + js : null;
  // The whole built here is the shipped module when pkg/ is built from the same sources: a
  // difference means scripts/build.sh's passes and these have drifted apart (or pkg/ is stale).
  const shipped = path.join(root, 'pkg/tokenpaint_core_bg.wasm');
  const drift = existsSync(shipped) && gzip(readFileSync(shipped)) !== whole;
  return { whole, live, one, js, jsLive, least: one + jsLive, split, drift };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const f = await floor();
  const rows = [
    ['wasm, whole (as shipped)', f.whole],
    ['wasm, live part (no figures, report, diagnosis, summary)', f.live],
    ['wasm, live part, OpenAI chat and text only', f.one],
    ['js bundled + minified, whole', f.js],
    ['js bundled + minified, without the verdict catalog', f.jsLive],
    ['before the first report, at the least (live one-format wasm + js)', f.least],
    ['split at the report, in all (live wasm + analysis wasm + js)', f.split ?? 'no pkg/analyse/'],
  ];
  console.log('gzip (bytes)');
  for (const [name, n] of rows) console.log(`${String(name).padEnd(68)}${String(n).padStart(8)}`);
  console.log(`budget ${BUDGET} B before the first report: ${f.least <= BUDGET ? 'within reach of a split' : `the least a split leaves is over it by ${f.least - BUDGET} B`}`);
  if (f.drift) console.log('note: the whole built here differs from pkg/tokenpaint_core_bg.wasm (stale pkg/, or scripts/build.sh passes changed)');
}
