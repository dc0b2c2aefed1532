// Every test a file registers is reported. `npm test` (scripts/test.sh) runs the test files with
// `node --test` and the flags written there; with `--test-force-exit`, Node 20's runner ended a
// file's process before the reports of its last tests were out, and dropped them without a
// failure: a fresh CI run reported 485 page tests where the same commit had reported 495 (the
// corpus's last ten cases), and tests/native/corpus.test.mjs alone lost 1 to 9 of its 60 tests
// in 3 of 20 runs with the flag, none in 28 without. Each run of a file of 200 quick async tests
// lost some in about one run in four with the flag: twelve runs here find it with odds of 97%.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const TESTS = 200;
const RUNS = 12;

/** The flags scripts/test.sh gives `node --test` for the page tests' files. */
export function runnerFlags(script = readFileSync(new URL('../../scripts/test.sh', import.meta.url), 'utf8')) {
  const line = script.split('\n').find((l) => /^node --test .*"\$\{pages\[@\]\}"/.test(l));
  assert.ok(line, 'scripts/test.sh runs the page tests with node --test');
  return line.split(/\s+/).filter((w) => w.startsWith('--') && w !== '--test');
}

test('every test a file registers is reported, run after run, with the flags npm test uses', (t) => {
  const flags = runnerFlags();
  const dir = mkdtempSync(path.join(tmpdir(), 'tokenpaint-harness-'));
  try {
    const file = path.join(dir, 'many.test.mjs');
    writeFileSync(file, `import { test } from 'node:test';\nfor (let i = 0; i < ${TESTS}; i++) test('case ' + i, async (t) => t.diagnostic('x'.repeat(2000)));\n`);
    // Run as npm test runs it, not as a child of this runner (NODE_TEST_CONTEXT would make it
    // report to this one instead of printing its own summary).
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const counts = [];
    for (let k = 0; k < RUNS; k++) {
      const out = execFileSync(process.execPath, ['--test', ...flags, file], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
      counts.push(Number(/^# tests (\d+)$/m.exec(out)?.[1]));
    }
    t.diagnostic(`flags ${flags.join(' ')}; tests reported in ${RUNS} runs: ${counts.join(', ')}`);
    assert.deepEqual(counts, Array(RUNS).fill(TESTS), `tests reported of ${TESTS}, run by run`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the flags are read from scripts/test.sh as written', () => {
  assert.deepEqual(runnerFlags('x\nnode --test --test-concurrency=1 --test-force-exit "${pages[@]}"\n'), ['--test-concurrency=1', '--test-force-exit']);
});
