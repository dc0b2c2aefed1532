// Functions stay short enough to read (issue 14): none in src/ or js/ is longer than LIMIT
// lines unless a `long-function:` comment just before it says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { all, LIMIT } from '../support/fnlen.mjs';

test(`no function in src/ or js/ is longer than ${LIMIT} lines without a stated reason`, (t) => {
  const rows = all();
  assert.ok(rows.length > 200, `${rows.length} functions found`);
  const long = rows.filter((r) => r.lines > LIMIT);
  for (const r of long) t.diagnostic(`${r.file}:${r.line} ${r.name}: ${r.lines} lines (${r.reason || 'no reason'})`);
  assert.deepEqual(long.filter((r) => !r.reason).map((r) => `${r.file}:${r.line} ${r.name} (${r.lines} lines)`), []);
});
