// Where the wasm module's bytes go (what `twiggy top` shows, without the tool): the size of each
// function body and data segment, named from the module's name section, grouped by where the
// code comes from. `npm run bench` reads a build that keeps the names (the release profile with
// debug info, through the same wasm-bindgen and wasm-opt -Oz passes as scripts/build.sh, which
// then strips them); the shipped module's sizes are the same but for the names.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function leb(buf, at) {
  let n = 0;
  let shift = 0;
  for (;;) {
    const b = buf[at++];
    n += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [n, at];
  }
}

/** Functions and data segments of a wasm module: `{ name, size }`, largest first. */
export function items(buf) {
  let at = 8;
  let imported = 0;
  const bodies = [];
  const data = [];
  const names = new Map();
  while (at < buf.length) {
    const id = buf[at++];
    let size;
    [size, at] = leb(buf, at);
    const end = at + size;
    if (id === 2) {
      // Imports: functions among them take the first indices.
      let [n, p] = leb(buf, at);
      for (let i = 0; i < n; i++) {
        let len;
        [len, p] = leb(buf, p);
        p += len;
        [len, p] = leb(buf, p);
        p += len;
        const kind = buf[p++];
        if (kind === 0) {
          imported++;
          [, p] = leb(buf, p);
        } else if (kind === 1) {
          p += 1;
          const flags = buf[p++];
          [, p] = leb(buf, p);
          if (flags & 1) [, p] = leb(buf, p);
        } else if (kind === 2) {
          const flags = buf[p++];
          [, p] = leb(buf, p);
          if (flags & 1) [, p] = leb(buf, p);
        } else if (kind === 3) p += 2;
        else if (kind === 4) p += 2;
      }
    } else if (id === 10) {
      let [n, p] = leb(buf, at);
      for (let i = 0; i < n; i++) {
        let len;
        const start = p;
        [len, p] = leb(buf, p);
        bodies.push(p + len - start);
        p += len;
      }
    } else if (id === 11) {
      let [n, p] = leb(buf, at);
      for (let i = 0; i < n; i++) {
        const start = p;
        let flags;
        [flags, p] = leb(buf, p);
        if (flags === 2) [, p] = leb(buf, p);
        if (flags !== 1) while (buf[p++] !== 0x0b);
        let len;
        [len, p] = leb(buf, p);
        p += len;
        data.push(p - start);
      }
    } else if (id === 0) {
      let [len, p] = leb(buf, at);
      const name = buf.toString('utf8', p, p + len);
      p += len;
      if (name === 'name') {
        while (p < end) {
          const sub = buf[p++];
          let subLen;
          [subLen, p] = leb(buf, p);
          const subEnd = p + subLen;
          if (sub === 1) {
            let [n, q] = leb(buf, p);
            for (let i = 0; i < n; i++) {
              let idx;
              let l;
              [idx, q] = leb(buf, q);
              [l, q] = leb(buf, q);
              names.set(idx, buf.toString('utf8', q, q + l));
              q += l;
            }
          }
          p = subEnd;
        }
      }
    }
    at = end;
  }
  const out = bodies.map((size, i) => ({ name: names.get(imported + i) || `code[${i}]`, size }));
  data.forEach((size, i) => out.push({ name: `data[${i}]`, size }));
  return out.sort((a, b) => b.size - a.size);
}

/** Where an item comes from: the crate module, the exports' wrappers, the standard library. */
export function groupOf(name) {
  const clean = name.replace(/\[[0-9a-f]+\]/g, '');
  if (name.startsWith('data[')) return 'data (strings, tables)';
  if (/^core_|^__wbg|^__wbindgen|^wasm_bindgen/.test(clean) || clean.includes('wasm_bindgen')) return 'exports (wasm-bindgen wrappers, with what they inline)';
  const scan = /tokenpaint_scan::([a-z_0-9]+)/.exec(clean);
  // tokenpaint-scan's modules are tokenpaint::read's (and tokenpaint::find) as re-exported.
  if (scan) return scan[1] === 'find' ? 'tokenpaint::find' : `tokenpaint::read::${scan[1]}`;
  const m = /tokenpaint::([a-z_]+)(?:::([a-z_]+))?/.exec(clean);
  if (m) return `tokenpaint::${m[1]}${m[2] && !/^[A-Z]/.test(m[2]) && ['read', 'figures', 'timeline', 'aggregate'].includes(m[1]) ? `::${m[2]}` : ''}`;
  if (/^(<)?(core|alloc|std)::|^<(core|alloc|std)|^(core|alloc|std)/.test(clean.replace(/^<+/, ''))) return 'Rust standard library (fmt, str, panics, collections)';
  return 'other';
}

/** A build with names kept, optimized as the shipped one; its path. */
export function namedBuild() {
  const out = path.join(root, 'target', 'named');
  execFileSync('cargo', ['build', '-q', '--profile', 'profiling', '--target', 'wasm32-unknown-unknown', '--lib', '--features', 'module'], { cwd: root, stdio: 'inherit' });
  execFileSync('wasm-bindgen', ['--target', 'web', '--keep-debug', '--out-dir', out, '--out-name', 't', path.join(root, 'target/wasm32-unknown-unknown/profiling/tokenpaint.wasm')], { cwd: root });
  const features = ['--enable-bulk-memory', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-reference-types', '--enable-multivalue'];
  const opt = path.join(root, 'node_modules/.bin/wasm-opt');
  execFileSync(opt, ['-Oz', '-g', ...features, path.join(out, 't_bg.wasm'), '-o', path.join(out, 'o.wasm')]);
  execFileSync(opt, ['--strip-dwarf', '-g', ...features, path.join(out, 'o.wasm'), '-o', path.join(out, 'named.wasm')]);
  return path.join(out, 'named.wasm');
}

/** Top items and groups of a named module. */
export function top(file, n = 15) {
  const all = items(readFileSync(file));
  const total = all.reduce((a, x) => a + x.size, 0);
  const groups = new Map();
  for (const x of all) groups.set(groupOf(x.name), (groups.get(groupOf(x.name)) || 0) + x.size);
  return { total, top: all.slice(0, n), groups: [...groups].sort((a, b) => b[1] - a[1]) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2] || namedBuild();
  const t = top(file, Number(process.env.TOP || 20));
  for (const [g, b] of t.groups) console.log(`${String(b).padStart(8)} ${((b / t.total) * 100).toFixed(1).padStart(5)}%  ${g}`);
  console.log('');
  for (const x of t.top) console.log(`${String(x.size).padStart(8)}  ${x.name.slice(0, 100)}`);
}
