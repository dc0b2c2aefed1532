// Size is deterministic: the wasm module and the minified JavaScript a page downloads stay under
// the enforced ceiling (scripts/size.mjs says why it is not yet the 40 KB budget; CHANGELOG.md
// keeps the ceiling's history).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sizes, BUDGET, CEILING, STUB_BUDGET, CRITICAL_BUDGET } from '../../scripts/size.mjs';

test('wasm + minified JS, gzip, stay under the enforced ceiling', (t) => {
  const rows = sizes();
  const total = rows.find((r) => r.name.startsWith('total'));
  for (const r of rows) t.diagnostic(`${r.name}: ${r.raw} B raw, ${r.gzip} B gzip, ${r.brotli} B brotli`);
  t.diagnostic(`budget ${BUDGET} B: ${total.gzip <= BUDGET ? 'met' : `over by ${total.gzip - BUDGET} B`}`);
  assert.ok(total.gzip <= CEILING, `${total.gzip} B gzip > ceiling ${CEILING} B`);
  // The minified bundle is what a bundler ships: it must contain the whole shell and glue.
  const min = rows.find((r) => r.name.startsWith('js bundled'));
  assert.ok(min.raw > 10_000, 'the bundle is not empty');
});

test('the stub of tokenpaint/lazy (all an unsampled page imports, all that runs before first paint) stays within its budgets', (t) => {
  const stub = sizes().find((r) => r.name.startsWith('stub'));
  t.diagnostic(`stub: ${stub.raw} B raw, ${stub.gzip} B gzip`);
  assert.ok(stub.gzip <= STUB_BUDGET, `${stub.gzip} B gzip > ${STUB_BUDGET} B`);
  assert.ok(stub.gzip <= CRITICAL_BUDGET, `${stub.gzip} B gzip > ${CRITICAL_BUDGET} B`);
  // It is the stub, not the profiler: the profiler is a chunk of its own.
  assert.ok(stub.raw > 1000 && stub.raw < 10_000, `${stub.raw} B raw`);
});

test('the overlay (tokenpaint/overlay) is its own entry, within 8 KB gzip, and not in the core bundle', async (t) => {
  const rows = sizes();
  const overlay = rows.find((r) => r.name.startsWith('overlay'));
  t.diagnostic(`overlay: ${overlay.raw} B raw, ${overlay.gzip} B gzip`);
  assert.ok(overlay.gzip <= 8 * 1024, `${overlay.gzip} B gzip > 8 KB`);
  // The core's entry never imports it: its code is not in the minified core bundle.
  const { readFileSync } = await import('node:fs');
  for (const f of ['index.js', 'profiler.js', 'core/stream.js', 'core/hub.js']) assert.ok(!readFileSync(new URL(`../../js/${f}`, import.meta.url), 'utf8').includes('overlay.js'), f);
});

// The cuts are the crate's features, held to the sources by the compiler: scripts/rust-checks.sh
// lints the build that has them, and scripts/floor.mjs builds with them and edits no source.
test('npm run size:floor cuts with the crate\'s own features, which the Rust checks build', async () => {
  const { readFileSync } = await import('node:fs');
  const text = (f) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');
  const cargo = text('Cargo.toml');
  for (const f of ['floor-live', 'floor-one-format']) assert.match(cargo, new RegExp(`^${f} = \\["module"\\]$`, 'm'), f);
  assert.match(text('scripts/rust-checks.sh'), /^cargo clippy .*--lib --features floor-live,floor-one-format -- -D warnings$/m);
  const floor = text('scripts/floor.mjs');
  assert.ok(floor.includes("wasmOf(['floor-live'])") && floor.includes("wasmOf(['floor-live', 'floor-one-format'])"));
  assert.ok(!/writeFileSync|\.rs['`]/.test(floor), 'scripts/floor.mjs edits no source');
  // Where the cuts are: a stream's end (saved timeline alone), the summary, the readers.
  assert.equal((text('src/streams.rs').match(/cfg!\(feature = "floor-live"\)/g) ?? []).length, 4);
  assert.equal((text('src/read/wire/mod.rs').match(/cfg!\(feature = "floor-one-format"\)/g) ?? []).length, 1);
});

test('the ceiling\'s history in CHANGELOG.md ends at the ceiling enforced', async () => {
  const { readFileSync } = await import('node:fs');
  const log = readFileSync(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
  const at = log.indexOf("## The size ceiling's history");
  assert.ok(at >= 0, "CHANGELOG.md has the size ceiling's history");
  const entries = log.slice(at).split('\n').filter((l) => /^- (Raised|Lowered) /.test(l));
  assert.ok(entries.length > 20, `${entries.length} entries`);
  const last = entries.at(-1).match(/ to ([\d.]+) KB/);
  assert.ok(last, entries.at(-1));
  assert.equal(Number(last[1]) * 1024, CEILING, `the last entry (${entries.at(-1)}) names the ceiling scripts/size.mjs enforces`);
});
