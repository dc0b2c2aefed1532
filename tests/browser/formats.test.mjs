// Every fixture of the corpus streamed over a real socket into real Chromium, through
// `profiler.fetch`, with no `format` option: the report names the fixture's format, and counts
// the deltas, usage and errors that the native reading of the same file expects.
import { test, before, after } from 'node:test';
import { setup } from '../support/helpers.mjs';
import { formatCases, readFixture, holdsFixture } from '../support/fixtures.mjs';

const cases = formatCases();

let env;
let page;
before(async () => {
  env = await setup();
  page = await env.harness();
});
after(() => env.close());

for (const c of cases) {
  test(`${c.format}/${c.file} is detected and read in the browser`, async () => {
    holdsFixture(await readFixture(page, c), c);
  });
}
