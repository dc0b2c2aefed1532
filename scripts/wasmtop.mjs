// Where the wasm module's bytes go (what `twiggy top` shows, without the tool): the size of each
// function body and data segment, named from the module's name section, grouped by where the
// code comes from. `npm run bench` profiles the page's module as shipped: the last release build
// (scripts/build.sh leaves the page's), through the same wasm-bindgen and wasm-opt passes
// (scripts/wasm-opt.sh) with its function names kept, and checked to be pkg/'s module byte for
// byte once the names are cut out. Beside it, the same code as rustc left it (before wasm-opt
// inlined most of it into the exports), and the generics compiled more than once.
import { readFileSync, mkdirSync } from 'node:fs';
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

const ESCAPES = { SP: '@', BP: '*', RF: '&', LT: '<', GT: '>', LP: '(', RP: ')', C: ',' };

/** A legacy-mangled Rust symbol (`_ZN…E`, as rustc names wasm functions) as Rust writes it. */
export function demangle(sym) {
  if (!/^_ZN.*E$/.test(sym)) return sym;
  const parts = [];
  for (let at = 3; at < sym.length - 1; ) {
    const len = /^\d+/.exec(sym.slice(at));
    if (!len) return sym;
    at += len[0].length;
    parts.push(sym.slice(at, at + Number(len[0])));
    at += Number(len[0]);
  }
  const ident = (p) =>
    p
      .replace(/^_\$/, '$')
      .replace(/\$([A-Z]{1,2}|u[0-9a-f]+)\$/g, (m, e) => (e in ESCAPES ? ESCAPES[e] : e[0] === 'u' ? String.fromCodePoint(parseInt(e.slice(1), 16)) : m))
      .replace(/\.\./g, '::');
  return parts.map(ident).join('::');
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
  const out = bodies.map((size, i) => ({ name: demangle(names.get(imported + i) || `code[${i}]`), size }));
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

/** The module without its name section, every other byte as it was. */
export function withoutNames(buf) {
  const out = [buf.subarray(0, 8)];
  for (let at = 8; at < buf.length; ) {
    const [size, body] = leb(buf, at + 1);
    const [len, name] = leb(buf, body);
    const end = body + size;
    if (!(buf[at] === 0 && buf.toString('utf8', name, name + len) === 'name')) out.push(buf.subarray(at, end));
    at = end;
  }
  return Buffer.concat(out);
}

/**
 * The page's module as shipped, with its function names kept: its path. Throws unless it is
 * pkg/tokenpaint_core_bg.wasm byte for byte once its names are cut out (run the build first).
 */
export function namedBuild() {
  const out = path.join(root, 'target', 'named');
  mkdirSync(out, { recursive: true });
  // The build's out-name: the module names its imports after it.
  execFileSync('wasm-bindgen', ['--target', 'web', '--out-dir', out, '--out-name', 'tokenpaint_core', compiled()], { cwd: root });
  const wasm = path.join(out, 'tokenpaint_core_bg.wasm');
  execFileSync('bash', ['-c', 'source scripts/wasm-opt.sh && optimize "$1" names', 'optimize', wasm], { cwd: root });
  const shipped = readFileSync(path.join(root, 'pkg/tokenpaint_core_bg.wasm'));
  if (!withoutNames(readFileSync(wasm)).equals(shipped)) throw new Error('the named module is not the shipped one once its names are cut: npm run build first');
  return wasm;
}

/** The last release build, as rustc left it (with names): scripts/build.sh leaves the page's. */
export const compiled = () => path.join(root, 'target/wasm32-unknown-unknown/release/tokenpaint.wasm');

/**
 * Generics compiled more than once: items of one name but for rustc's hash, with the bytes of
 * all their copies and what one copy would save. Largest saving first.
 */
export function monos(file, n = 10) {
  const copies = new Map();
  for (const x of items(readFileSync(file))) {
    const m = /^(.*)::h[0-9a-f]{16}$/.exec(x.name);
    if (!m) continue;
    const list = copies.get(m[1]) || [];
    list.push(x.size);
    copies.set(m[1], list);
  }
  const all = [...copies]
    .filter(([, l]) => l.length > 1)
    .map(([name, l]) => ({ name, copies: l.length, size: l.reduce((a, b) => a + b, 0), saved: l.reduce((a, b) => a + b, 0) - Math.max(...l) }))
    .sort((a, b) => b.saved - a.saved);
  return { top: all.slice(0, n), count: all.length, size: all.reduce((a, m) => a + m.size, 0), saved: all.reduce((a, m) => a + m.saved, 0) };
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
  console.log('\nas rustc left it:');
  for (const x of top(compiled(), Number(process.env.TOP || 20)).top) console.log(`${String(x.size).padStart(8)}  ${x.name.slice(0, 100)}`);
  const m = monos(compiled());
  console.log(`\ngenerics compiled more than once: ${m.count}, ${m.size} B, ${m.saved} B saved by one copy each`);
  for (const x of m.top) console.log(`${String(x.saved).padStart(8)}  ${x.copies} copies, ${x.size} B  ${x.name.slice(0, 90)}`);
}
