// npm run build:extension: the browser extension (extension/) as an unpacked folder,
// dist/extension/, and a zip of it, dist/tokenpaint-extension.zip. The page-world script is
// tokenpaint's npm entry, the overlay and the wasm module in one classic script (content scripts
// are not modules), so that nothing is fetched from the page.
//
//   node scripts/build-extension.mjs [--out DIR] [--grant ORIGIN]
//
// `--grant ORIGIN` adds ORIGIN to the manifest's host permissions, as if its user had granted it:
// for tests, which cannot answer the browser's permission prompt.
import { build } from 'esbuild';
import { mkdirSync, rmSync, copyFileSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { deflateRawSync, crc32 } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : null;
};
const out = path.resolve(opt('--out') || path.join(root, 'dist', 'extension'));
const grant = opt('--grant');

export async function buildExtension({ dir = out, origin = grant } = {}) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const src = path.join(root, 'extension');
  for (const f of ['background.js', 'bridge.js', 'csp.js', 'popup.html', 'popup.css', 'popup.js']) copyFileSync(path.join(src, f), path.join(dir, f));
  await bundle(path.join(src, 'page.js'), path.join(dir, 'page.js'));
  const manifest = JSON.parse(readFileSync(path.join(src, 'manifest.json'), 'utf8'));
  if (origin) manifest.host_permissions = [`${origin}/*`];
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return dir;
}

/** A classic script of `entry` with the wasm module in it (for the page's own world). */
export async function bundle(entry, outfile) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2022',
    loader: { '.wasm': 'binary' },
    legalComments: 'none',
    logLevel: 'error',
    // The glue's default wasm URL (import.meta.url) is never used: the bytes are given.
    define: { 'import.meta.url': '"about:blank"' },
  });
  return outfile;
}

/** The injectable script (extension/inject.js) at `outfile`. */
export function buildInject(outfile = path.join(root, 'dist', 'tokenpaint-inject.js')) {
  return bundle(path.join(root, 'extension', 'inject.js'), outfile);
}

/** A zip (deflated) of the files under `dir`. */
export function zip(dir) {
  const files = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(dir);
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const p of files) {
    const name = Buffer.from(path.relative(dir, p).split(path.sep).join('/'));
    const data = readFileSync(p);
    const packed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0);
    head.writeUInt16LE(20, 4);
    head.writeUInt16LE(0, 6);
    head.writeUInt16LE(8, 8); // deflate
    head.writeUInt32LE(0x210000, 10); // 1980-01-01 00:00, so that the zip is the same each build
    head.writeUInt32LE(crc, 14);
    head.writeUInt32LE(packed.length, 18);
    head.writeUInt32LE(data.length, 22);
    head.writeUInt16LE(name.length, 26);
    head.writeUInt16LE(0, 28);
    locals.push(head, name, packed);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0, 8);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(0x210000, 12);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(packed.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    centrals.push(c, name);
    offset += head.length + name.length + packed.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, central, end]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await buildExtension();
  await buildInject();
  const file = path.join(path.dirname(dir), 'tokenpaint-extension.zip');
  writeFileSync(file, zip(dir));
  console.log(`${path.relative(root, dir)}/ and ${path.relative(root, file)} (${(statSync(file).size / 1024).toFixed(1)} KB)`);
}
