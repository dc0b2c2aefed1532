// The corpus of recorded streams (tests/fixtures/<format>/<file>) with what the native reading
// of each file expects (its .expect file): used by the format tests in every engine.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import assert from 'node:assert/strict';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

export function formatCases() {
  const cases = [];
  for (const format of readdirSync(FIXTURES).sort()) {
    if (!statSync(path.join(FIXTURES, format)).isDirectory()) continue;
    for (const file of readdirSync(path.join(FIXTURES, format)).sort()) {
      if (!/\.(sse|ndjson|txt|json)$/.test(file)) continue;
      const expect = readFileSync(path.join(FIXTURES, format, file.replace(/\.[a-z]+$/, '.expect')), 'utf8');
      const deltas = /^deltas: (\d+) answer, (\d+) reasoning, (\d+) tool$/m.exec(expect);
      cases.push({
        format,
        file,
        answer: Number(deltas[1]),
        reasoning: Number(deltas[2]),
        tools: Number(deltas[3]),
        completion: /completion_tokens: Some\((\d+)\)/.exec(expect)?.[1],
        errorCode: /error: Some\(StreamError \{ code: "([^"]*)"/.exec(expect)?.[1],
      });
    }
  }
  return cases;
}

/** Streams one fixture through `profiler.fetch` in `page` (anything with `evaluate`). */
export function readFixture(page, c) {
  return page.evaluate(async (url) => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler();
    const report = new Promise((resolve) => p.onReport(resolve));
    const res = await p.fetch(url);
    await res.arrayBuffer(); // the app reads the body as it likes
    return report;
  }, `/fixture/${c.format}/${c.file}?chunk=48&delay_ms=2`);
}

/** The report of a fixture holds what the native reading expects. */
export function holdsFixture(r, c) {
  assert.equal(r.format, c.format);
  if (c.format !== 'text') assert.equal(r.deltas, c.answer, 'answer deltas');
  assert.equal(r.reasoning?.deltas ?? 0, c.reasoning, 'reasoning deltas');
  assert.equal(r.toolCalls, c.tools, 'tool calls');
  if (c.completion) assert.equal(r.usage.completionTokens, Number(c.completion));
  if (c.errorCode) {
    assert.equal(r.status, 'error');
    assert.equal(r.error.code, c.errorCode);
  } else {
    assert.notEqual(r.status, 'error');
  }
  assert.equal(r.malformed, null);
}
