// What a page would load before its first report, were the module split at the report
// (npm run size:floor). The page's wasm is built three ways from a copy of the sources, each
// optimized as scripts/build.sh does and measured gzip (level 9), side by side in one run:
//   whole: the page's module as shipped;
//   live: the stream's part alone, what a page needs while text streams: a stream's end writes
//     only its saved timeline (src/saved.rs, the form a second module would analyse), and the
//     figures, the report's JSON, the diagnosis and the summary are cut, so the linker drops them;
//   live, one format: the same, reading OpenAI chat and plain text only (the readers of the
//     other eight formats cut).
// With pkg/analyse/ built, the whole such a split would load is given too.
// The JavaScript is the eager bundle of `tokenpaint` (as npm run size measures it), whole and
// without the verdict catalog's words (js/verdicts.js), which only a report needs.
// A cut that no longer applies to the sources fails the script, naming it.
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
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
 * Replaces `from` (a string, or a pattern) with `to` in `file` under `dir`; fails when it is not
 * there, so that a cut cannot silently measure the whole.
 * @param {string} dir @param {string} file @param {string | RegExp} from @param {string} to
 */
function cut(dir, file, from, to) {
  const p = path.join(dir, file);
  const s = readFileSync(p, 'utf8');
  const found = typeof from === 'string' ? s.includes(from) : from.test(s);
  if (!found) throw new Error(`floor: the cut in ${file} no longer applies (${String(from).slice(0, 60)})`);
  writeFileSync(p, s.replace(from, to));
}

/** @param {string} dir */
function cutReport(dir) {
  cut(dir, 'src/streams.rs', /(pub fn finish\(&mut self, id: u32, timeline: bool, save: bool\) -> Option<String> \{)[\s\S]*?\n    \}\n/, `$1
        let i = self.open.iter().position(|o| o.id == id)?;
        let o = self.open.swap_remove(i);
        let meta = o.meta(timeline);
        let _ = save;
        Some(saved::write(&o.session.tl, &meta, &self.shell, &self.frames, self.baseline))
    }
`);
  cut(dir, 'src/wasm.rs', 'self.streams.export_summary()', 'String::new()');
  cut(dir, 'src/wasm.rs', 'self.streams.merge_summary(exported)', 'exported.is_empty()');
  cut(dir, 'src/wasm.rs', /(pub fn summary\(&self\) -> String \{\s*)self\.streams\.summary\(\)/, '$1String::new()');
}

/** @param {string} dir */
function cutFormats(dir) {
  const calls = ['responses::event(kind, data, b, emit)', 'anthropic::event(data, b, emit)', 'ollama::event(data, b, emit)', 'tgi::event(data, b, emit)', 'llamacpp::event(data, b, emit)', 'aisdk::ui_event(data, b, emit)', 'aisdk::data_line(data, b, emit)', 'document::read(data, b, emit)'];
  for (const c of calls) cut(dir, 'src/read/wire/mod.rs', c, `{ let _ = (kind, data, &b); Ok(()) }`);
}

const FEATURES = ['--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue'];

/**
 * Builds the page's module from the sources in `dir`, optimized as scripts/build.sh does (its
 * passes are repeated here: the whole's size is checked against pkg/'s below).
 * @param {string} dir
 */
function wasmOf(dir) {
  const target = path.join(root, 'target/floor');
  // The cuts leave readers unused: the compiler's warnings are shown only when a step fails.
  const run = (/** @type {string} */ cmd, /** @type {string[]} */ args) => {
    try {
      execFileSync(cmd, args, { cwd: dir, stdio: 'pipe', env: { ...process.env, CARGO_TARGET_DIR: target } });
    } catch (e) {
      process.stderr.write(String(/** @type {{ stderr?: Buffer }} */ (e).stderr ?? ''));
      throw e;
    }
  };
  run('cargo', ['build', '-q', '--release', '--target', 'wasm32-unknown-unknown', '--lib', '--features', 'module']);
  const out = path.join(dir, 'out');
  run('wasm-bindgen', ['--target', 'web', '--out-dir', out, '--out-name', 'tokenpaint_core', path.join(target, 'wasm32-unknown-unknown/release/tokenpaint.wasm')]);
  const w = path.join(out, 'tokenpaint_core_bg.wasm');
  const opt = path.join(root, 'node_modules/.bin/wasm-opt');
  run(opt, ['-Oz', '--flatten', '--rereloop', '-Oz', ...FEATURES, w, '-o', w]);
  run(opt, ['-Oz', '--strip-debug', '--strip-producers', ...FEATURES, w, '-o', w]);
  run(opt, ['-Oz', ...FEATURES, w, '-o', w]);
  return readFileSync(w);
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

/** The files the cuts edit. */
const CUT_FILES = ['src/streams.rs', 'src/wasm.rs', 'src/read/wire/mod.rs'];

/**
 * Applies both cuts to a copy of the files they edit, without building: throws, naming the cut,
 * when one no longer applies to the sources (tests/repo/size.test.mjs).
 */
export function checkCuts() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'tokenpaint-cuts-'));
  try {
    for (const f of CUT_FILES) cpSync(path.join(root, f), path.join(tmp, f), { recursive: true });
    cutReport(tmp);
    cutFormats(tmp);
    return CUT_FILES.map((f) => readFileSync(path.join(tmp, f), 'utf8'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The sizes above, gzip bytes, side by side in one run.
 * @returns {Promise<{ whole: number, live: number, one: number, js: number, jsLive: number, least: number, split: number | null, drift: boolean }>}
 */
export async function floor() {
  const tmp = mkdtempSync(path.join(tmpdir(), 'tokenpaint-floor-'));
  try {
    for (const p of ['Cargo.toml', 'Cargo.lock', 'src', 'crates']) cpSync(path.join(root, p), path.join(tmp, p), { recursive: true });
    const whole = gzip(wasmOf(tmp));
    cutReport(tmp);
    const live = gzip(wasmOf(tmp));
    cutFormats(tmp);
    const one = gzip(wasmOf(tmp));
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
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
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
