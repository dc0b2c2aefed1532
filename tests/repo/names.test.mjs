// Every name the shell uses is declared or imported: tsc reads js/ as JavaScript (checkJs) and
// no "Cannot find name" may come out (a name left behind by a refactor is a ReferenceError only
// on the path that reaches it, in production).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('no undeclared name in the shell (tsc checkJs: no TS2304, TS2552)', () => {
  const args = ['--allowJs', '--checkJs', '--noEmit', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler', '--lib', 'es2022,dom', '--skipLibCheck', 'js/index.js', 'js/lazy.js', 'js/overlay.js', 'js/arrival-sw.js'];
  let out = '';
  try {
    out = execFileSync(path.join(root, 'node_modules', '.bin', 'tsc'), args, { cwd: root, encoding: 'utf8' });
  } catch (e) {
    out = String(e.stdout) + String(e.stderr);
  }
  const missing = out.split('\n').filter((l) => /error TS(2304|2552)/.test(l));
  assert.ok(/js\//.test(out) || out.trim() === '', 'tsc ran over js/');
  assert.deepEqual(missing, []);
});
