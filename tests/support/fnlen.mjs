// Function lengths in src/ and crates/ (Rust) and js/ (JavaScript): each function's body, from the line that
// opens it to the line that closes its brace. A function longer than LIMIT lines must say why in
// a comment containing "long-function:" on the line before it.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const LIMIT = 120;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function files(dir, ext) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p, ext));
    else if (name.endsWith(ext)) out.push(p);
  }
  return out;
}

// A function starts on a line that declares one and ends where its braces balance again.
const RUST_FN = /^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?fn\s+(\w+)/;
const JS_FN = /^\s*(export\s+)?(async\s+)?(function\*?\s+(\w+)|(static\s+)?(get\s+|set\s+)?(\w+)\s*\([^)]*\)\s*\{\s*$)/;

/** Every function of `file` with its length in lines: [{ file, name, line, lines, reason }]. */
export function lengths(file) {
  const text = readFileSync(file, 'utf8').split('\n');
  const rust = file.endsWith('.rs');
  const out = [];
  for (let i = 0; i < text.length; i++) {
    const m = (rust ? RUST_FN : JS_FN).exec(text[i]);
    if (!m) continue;
    const name = rust ? m[5] : m[4] || m[7];
    if (!rust && ['if', 'for', 'while', 'switch', 'catch', 'return'].includes(name)) continue;
    let depth = 0;
    let opened = false;
    let end = i;
    for (let j = i; j < text.length; j++) {
      // Braces in strings and comments are rare in this code base; good enough for a length.
      const line = text[j].replace(/\/\/.*$/, '').replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '');
      for (const c of line) {
        if (c === '{') {
          depth++;
          opened = true;
        } else if (c === '}') depth--;
      }
      if (!opened && /;\s*$/.test(line)) break; // a declaration without a body
      if (opened && depth <= 0) {
        end = j;
        break;
      }
    }
    if (!opened) continue;
    const reasonLine = (text[i - 1] || "") + (text[i - 2] || "");
    const reason = /long-function:\s*(.+)/.exec(reasonLine);
    out.push({ file: path.relative(root, file), name, line: i + 1, lines: end - i + 1, reason: reason ? reason[1] : null });
  }
  return out;
}

export function all() {
  return [...files(path.join(root, 'src'), '.rs'), ...files(path.join(root, 'crates'), '.rs'), ...files(path.join(root, 'js'), '.js')].flatMap(lengths);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = all().sort((a, b) => b.lines - a.lines);
  for (const r of rows.slice(0, Number(process.argv[2]) || 15)) console.log(`${String(r.lines).padStart(4)}  ${r.file}:${r.line} ${r.name}${r.reason ? `  (${r.reason})` : ''}`);
}
