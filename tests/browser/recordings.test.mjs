// Issue 58: eight real chat apps, each recorded from the app installed from PyPI at a pinned
// version (tests/recordings/, scripts/record-app.mjs: its wire both ways and its page's DOM
// changes), replayed through real transports (a real WebSocket server, real SSE over fetch and
// XMLHttpRequest: scripts/replay-server.mjs) into a page that sends what the app's page sent and
// changes its DOM as the app's page did (tests/pages/replay.js). tokenpaint's injected script (the
// extension's, tokenpaint/playwright's) is the only instrumentation; no reader of tokenpaint's was
// written for six of them. The question is typed and sent with Enter, as a user does.
//
// Each answer is one report: status ok, matched ≥ 99%, its start the request or frame that carried
// the question (or the submit, where none did) as the recording says, `read.end` as the app's
// traffic shows, perceived TTFT not before the page's own first text and within two frames of the
// paint after it, lag p50 within two frames of the page's own (the page's MutationObserver and
// after-paint marks: tests/support/truth.mjs), no buffering verdict; nothing else reported.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { buildInject } from '../../scripts/build-extension.mjs';
import { CHROMIUM, ARGS } from '../support/helpers.mjs';
import { RECORDINGS, replay, holds } from '../support/replay.mjs';

let browser;
let inject;
before(async () => {
  inject = readFileSync(await buildInject(), 'utf8');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
after(() => browser.close());

for (const r of RECORDINGS) {
  test(`${r.app} (${r.file}), replayed, no code: one report, read ${r.reader ? `by its reader` : 'as learned from the page'}, its start and end as the app's traffic shows, within two frames of the page's own truth`, async (t) => {
    const got = await replay(browser, inject, r, {});
    holds(t, r, got, (x) => {
      if (r.reader) assert.deepEqual({ by: x.read.by, format: x.read.format }, { by: 'reader', format: r.reader });
      else assert.equal(x.read.by, 'learned', JSON.stringify(x.read));
    });
  });
  if (r.reader) {
    test(`${r.app} (${r.file}), replayed with the apps' readers off: learned from the page, with the same checks`, async (t) => {
      const got = await replay(browser, inject, r, { appReaders: false });
      holds(t, r, got, (x) => assert.equal(x.read.by, 'learned', JSON.stringify(x.read)));
    });
  }
}
