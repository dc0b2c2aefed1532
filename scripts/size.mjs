// The size of what a page downloads: the wasm module, and the JavaScript (wasm-bindgen glue +
// the shell) as shipped in js/ and as a production bundler ships it (esbuild, bundled and
// minified). Raw, gzip (level 9) and brotli. The budget counts the wasm and the minified JS.
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync, brotliCompressSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { buildSync } from 'esbuild';

/** The issue's budget for wasm + JS glue, gzip. */
export const BUDGET = 40 * 1024;
/**
 * What `npm test` enforces: a ceiling just above today's size, so that the whole only falls while
 * the budget above is worked down (BENCHMARKS.md says by how much and why). A change may lower
 * it, never raise it; its history (each raise or fall and what it paid for) is in CHANGELOG.md,
 * "The size ceiling's history", and tests/repo/size.test.mjs holds its last entry to CEILING.
 * Issue 60 brings the whole down.
 */
export const CEILING = 106 * 1024 + 528;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(path.join(root, p));

/** The issue's budget for the stub an unsampled page imports (tokenpaint/lazy), gzip. */
export const STUB_BUDGET = 2 * 1024;
/** The issue's budget for the JS that runs before the app's first paint, gzip. */
export const CRITICAL_BUDGET = 8 * 1024;

const row = (name, b) => ({ name, raw: b.length, gzip: gzipSync(b, { level: 9 }).length, brotli: brotliCompressSync(b).length });

/** esbuild's options for bundling `entry` as a production bundler does (minified, split at dynamic imports). @param {string} entry */
export const bundleOptions = (entry) => ({
  entryPoints: [path.join(root, entry)],
  bundle: true,
  minify: true,
  format: /** @type {const} */ ('esm'),
  splitting: true,
  // Node's own modules (tokenpaint/analyse reads its wasm from disk there) are not bundled.
  external: ['node:*'],
  metafile: true,
  outdir: path.join(root, 'target/size'),
  write: false,
  logLevel: /** @type {const} */ ('silent'),
});

/** Bundles `entry` as a production bundler does. @param {string} entry */
function bundle(entry) {
  return chunks(buildSync(bundleOptions(entry)), entry);
}

/**
 * A bundle's chunks: `eager`, what a page runs as soon as it imports the entry, and all of them.
 * @param {{ outputFiles: { path: string, contents: Uint8Array }[], metafile: { outputs: Record<string, { imports: { path: string, kind: string }[] }> } }} result
 * @param {string} entry
 */
export function chunks({ outputFiles, metafile }, entry) {
  const rel = (f) => path.relative(root, f.path);
  const byName = new Map(outputFiles.map((f) => [rel(f), Buffer.from(f.contents)]));
  const first = outputFiles.find((f) => path.basename(f.path) === path.basename(entry));
  // What a page runs as soon as it imports the entry: the entry chunk and the chunks it imports
  // statically; the rest is loaded by dynamic import().
  const eager = new Set();
  const visit = (name) => {
    if (eager.has(name)) return;
    eager.add(name);
    for (const i of metafile.outputs[name].imports) if (i.kind === 'import-statement') visit(i.path);
  };
  visit(rel(first));
  // The chunks' names carry a hash of their content (`chunk-TOB5NFHW.js`): the code that imports
  // them is measured with fixed hashes instead, as random-looking as real ones (one per chunk, in
  // the order they appear), so that a change in another chunk's content does not move this
  // one's gzip size (by up to 3 B, seen against the stub's 2 KB).
  const fixed = new Map();
  const hashOf = (name) => {
    if (!fixed.has(name)) {
      let x = 0x9e3779b9 ^ (fixed.size + 1);
      let h = '';
      for (let i = 0; i < 8; i++) {
        x = (Math.imul(x, 1103515245) + 12345) >>> 0;
        h += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[x >>> 27];
      }
      fixed.set(name, h);
    }
    return fixed.get(name);
  };
  const stable = (b) => Buffer.from(b.toString('latin1').replace(/([\w-]+)-([A-Z0-9]{8})\.js/g, (_, base, h) => `${base}-${hashOf(`${base}-${h}`)}.js`), 'latin1');
  const pick = (names) => stable(Buffer.concat([...names].map((n) => byName.get(n))));
  return { eager: pick(eager), all: byName, names: [...byName.keys()], eagerNames: eager };
}

export function sizes() {
  const wasm = read('pkg/tokenpaint_core_bg.wasm');
  const js = Buffer.concat([
    read('pkg/tokenpaint_core.js'),
    // tokenpaint/playwright runs in Node, never in a page; tokenpaint/analyse in Node and the lab.
    ...readdirSync(path.join(root, 'js'), { recursive: true })
      .filter((f) => f.endsWith('.js') && f !== 'playwright.js' && f !== 'analyse.js')
      .sort()
      .map((f) => read(`js/${f}`)),
  ]);
  // The full entry: what every page that imports `tokenpaint` runs at once. The OTLP exporter and
  // the DevTools track are chunks of their own, loaded only when their option is set.
  const full = bundle('js/index.js');
  const min = full.eager;
  const lazy = Buffer.concat(full.names.filter((n) => !full.eagerNames.has(n)).map((n) => full.all.get(n)));
  // The lazy entry (tokenpaint/lazy): the stub is what a page imports and runs before its first
  // paint; the profiler is a chunk it imports at idle or at the first stream, on sampled pages.
  const stub = bundle('js/lazy.js').eager;
  const rows = [row('wasm', wasm), row('js as shipped (glue + shell)', js), row('js bundled + minified', min)];
  const total = { name: 'total (wasm + minified js)', raw: rows[0].raw + rows[2].raw, gzip: rows[0].gzip + rows[2].gzip, brotli: rows[0].brotli + rows[2].brotli };
  // The development overlay (tokenpaint/overlay): its own entry, never in the core's bundle.
  const overlay = bundle('js/overlay.js').eager;
  // The analysis module (tokenpaint/analyse): saved timelines analysed again in Node or the lab;
  // never loaded by a page that profiles.
  const analysis = Buffer.concat([read('pkg/analyse/tokenpaint_analyse_bg.wasm'), bundle('js/analyse.js').eager]);
  return [...rows, total, row('lazy chunks (otlp, devtools, arrival clock, document search)', lazy), row('stub (tokenpaint/lazy)', stub), row('overlay (tokenpaint/overlay)', overlay), row('analysis (tokenpaint/analyse; not in pages)', analysis)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = sizes();
  const w = (s, n) => String(s).padStart(n);
  console.log(`${'size (bytes)'.padEnd(30)}${w('raw', 10)}${w('gzip', 10)}${w('brotli', 10)}`);
  for (const r of rows) console.log(`${r.name.padEnd(30)}${w(r.raw, 10)}${w(r.gzip, 10)}${w(r.brotli, 10)}`);
  const total = rows.find((r) => r.name.startsWith('total')).gzip;
  console.log(`budget ${BUDGET} B gzip: ${total <= BUDGET ? 'met' : `over by ${total - BUDGET} B`}; enforced ceiling ${CEILING} B`);
  const stub = rows.find((r) => r.name.startsWith('stub')).gzip;
  console.log(`stub and critical path (tokenpaint/lazy): ${stub} B gzip; budgets ${STUB_BUDGET} B (stub) and ${CRITICAL_BUDGET} B (critical path): ${stub <= STUB_BUDGET ? 'met' : 'over'}`);
}
