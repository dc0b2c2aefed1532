// Page tests in real headless Chromium against the real demo server over 127.0.0.1: the
// library measures what a real page does, and the demo shows it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, median, lags, FRAME, holdsCrossOrigin } from '../support/helpers.mjs';

let env;
let harness;

before(async () => {
  env = await setup();
  harness = await env.harness();
});

after(async () => {
  await env.close();
});

const run = (args) => harness.evaluate((a) => window.runStream(a), args);

// 40 tokens every 20 ms, shortly after the request.
const STEADY = 'ttft_ms=50&token_ms=20&tokens=40';

test('a fixed 100 ms render delay gives a median delivery lag within [100, 100 + 2 frames] (or the page\'s own paint + a frame)', async (t) => {
  const r = await run({ query: STEADY, render: 'delay', delay: 100, paintTruth: true });
  assert.equal(r.status, 'ok');
  assert.equal(r.matchedPct, 100);
  const m = median(lags(r));
  t.diagnostic(`median delivery lag ${m.toFixed(2)} ms (p95 ${r.lag.p95}, max ${r.lag.max}), the page's paint ${r.paintTruth}`);
  // A loaded machine fires the timers and paints the frames late: held to the page's own paint.
  assert.ok(m >= 100 && m <= Math.max(100 + 2 * FRAME, r.paintTruth + FRAME), `median lag ${m}, the page's paint ${r.paintTruth}`);
  assert.ok(Math.abs(r.lag.p50 - m) < 0.01, 'the report states the same median');
});

// Issue 49: a page that updates only once no delta has come for 60 ms (a debounce, as a
// low-priority update that every new delta interrupts) holds the text back for as long as the
// stream keeps coming, while its main thread is free and its frames keep coming; the server's
// one 200 ms pause lets it show the first 30 tokens in one step. That is a deferred update, not
// render cost: its own verdict, its freeze within a frame of the page's own (its longest wait
// from a delta's arrival to its paint), and the frames counted.
test('a page that defers its updates while it is free is client-updates-deferred, its freeze within a frame of the page\'s own', async (t) => {
  const r = await run({ query: 'ttft_ms=50&token_ms=20&tokens=60&stall_at=30&stall_ms=200', render: 'deferred', delay: 60, paintTruth: true });
  const v = r.diagnosis.find((d) => d.verdict === 'client-updates-deferred');
  t.diagnostic(JSON.stringify({ verdicts: r.diagnosis.map((d) => d.verdict), evidence: v?.evidence, stalls: r.stalls, frames: r.frames, truth: r.paintTruthMax }));
  assert.equal(r.matchedPct, 100);
  assert.ok(v, r.diagnosis.map((d) => d.verdict).join());
  assert.equal(v.place, 'page');
  assert.ok(!r.diagnosis.some((d) => d.verdict === 'client-render-bound'));
  assert.ok(Math.abs(r.stalls.longest - r.paintTruthMax) <= FRAME + 2, `freeze ${r.stalls.longest} vs the page's ${r.paintTruthMax}`);
  assert.equal(v.evidence.freezeMs, r.stalls.longest);
  assert.ok(v.evidence.stepChars >= 100, `a step of ${v.evidence.stepChars} characters`);
  // The page kept painting: about a frame per interval through the freeze.
  assert.ok(v.evidence.framesDuringFreeze >= 0.5 * (v.evidence.freezeMs / r.frames.intervalMs), JSON.stringify(v.evidence));
  assert.ok(r.frames.painted > 20 && r.frames.fps > 20, JSON.stringify(r.frames));
});

test('an appending page is not deferred: its frames counted, its freeze none', async (t) => {
  const r = await run({ query: 'ttft_ms=50&token_ms=20&tokens=60&stall_at=30&stall_ms=200', render: 'immediate', paintTruth: true });
  t.diagnostic(JSON.stringify({ verdicts: r.diagnosis.map((d) => d.verdict), stalls: r.stalls, frames: r.frames }));
  assert.ok(!r.diagnosis.some((d) => d.verdict === 'client-updates-deferred'));
  assert.equal(r.stalls.count, 0);
  assert.ok(r.frames.painted > 20, JSON.stringify(r.frames));
});

// Issue 49: typing into the prompt while the answer streams. A page that re-renders the whole
// message at 60 ms a delta keeps its main thread blocked: the key presses wait for it. Their
// duration is the browser's own Event Timing entry (the page's observer records it; those that
// ended before the report was made, which are those it can hold: a key press still waiting when
// the answer's last paint is reported belongs to no stream), and the verdict names the render; an appending page answers the same typing at once, with no verdict.
async function typeWhileStreaming(args) {
  await harness.focus('#prompt');
  const answer = run(args);
  await new Promise((r) => setTimeout(r, 400));
  await harness.keyboard.type('what about the tail?', { delay: 40 });
  return answer;
}

test('typing while a whole-message re-render streams: each key press waits for it, and the verdict names it', async (t) => {
  const r = await typeWhileStreaming({ query: 'ttft_ms=50&token_ms=30&tokens=90', render: 'rerender', cost: 60 });
  const v = r.diagnosis.find((d) => d.verdict === 'client-input-delayed');
  t.diagnostic(JSON.stringify({ input: r.input, truth: r.inputTruth, verdicts: r.diagnosis.map((d) => d.verdict), evidence: v?.evidence }));
  assert.ok(r.input && r.input.count >= 1, JSON.stringify(r.input));
  // Interactions, not entries (issue 59: a key's keydown, keypress and keyup were three).
  assert.equal(r.input.count, r.inputTruthCount, `${r.input.count} interactions counted, the browser's ${r.inputTruthCount}`);
  assert.ok(Math.abs(r.input.durationMaxMs - r.inputTruth) <= FRAME, `longest interaction ${r.input.durationMaxMs} vs the browser's ${r.inputTruth}`);
  assert.ok(v, r.diagnosis.map((d) => d.verdict).join());
  assert.equal(v.place, 'page');
  assert.ok(!r.unavailable.includes('event-timing'));
});

test('typing while an appending page streams: answered at once, no input verdict', async (t) => {
  const r = await typeWhileStreaming({ query: 'ttft_ms=50&token_ms=30&tokens=60', render: 'immediate' });
  t.diagnostic(JSON.stringify({ input: r.input, truth: r.inputTruth, verdicts: r.diagnosis.map((d) => d.verdict) }));
  assert.ok(!r.diagnosis.some((d) => d.verdict === 'client-input-delayed'));
  if (r.input) assert.ok(Math.abs(r.input.durationMaxMs - r.inputTruth) <= FRAME);
  if (r.input) assert.equal(r.input.count, r.inputTruthCount);
});

test('immediate rendering gives a median delivery lag under one frame + 2 ms', async (t) => {
  const r = await run({ query: STEADY, render: 'immediate' });
  assert.equal(r.matchedPct, 100);
  assert.equal(r.lag.count, 40);
  const m = median(lags(r));
  t.diagnostic(`median delivery lag ${m.toFixed(2)} ms (p95 ${r.lag.p95}, max ${r.lag.max})`);
  assert.ok(m >= 0 && m < FRAME + 2, `median lag ${m}`);
});

test("a page that renders only at the end has its perceived TTFT in the frame the page asked for after its commit", async (t) => {
  const r = await run({ query: STEADY, render: 'end' });
  assert.equal(r.matchedPct, 100);
  assert.ok(r.e2e > r.ttft + 500, `the answer streamed for ${r.e2e - r.ttft} ms`);
  t.diagnostic(`measured E2E ${r.e2e} ms, perceived TTFT ${JSON.stringify(r.ttftPerceived)}, the page's ${JSON.stringify(r.truth)}`);
  // The frame the page itself asked for right after its commit (held to the page's truth, not
  // to a frame's time after the last arrival, which a loaded machine misses).
  assert.ok(r.truth.commit >= r.e2e);
  assert.ok(Math.abs(r.ttftPerceived.frame - Math.max(r.truth.frame, r.truth.commit)) <= 1.5, `frame ${r.ttftPerceived.frame} vs the page's ${JSON.stringify(r.truth)}`);
  assert.ok(r.ttftPerceived.painted >= r.ttftPerceived.frame);
});

test('re-rendering the whole element on every token is aligned like appending', async () => {
  const r = await run({ query: STEADY, render: 'rerender' });
  assert.equal(r.matchedPct, 100);
  assert.equal(r.lag.count, 40);
  assert.ok(median(lags(r)) < FRAME + 2);
});

test('track(response, { target }) profiles a response fetched by the app itself', async () => {
  const r = await run({ query: STEADY, render: 'delay', delay: 60, via: 'track' });
  assert.equal(r.matchedPct, 100);
  const m = median(lags(r));
  assert.ok(m >= 60 && m <= 60 + 2 * FRAME, `median lag ${m}`);
});

test('the app reads exactly the bytes the server sent (1 MB, hash compared)', async () => {
  const h = await harness.evaluate((q) => window.hashStream(q), 'body_bytes=1048576&seed=3');
  assert.ok(h.length >= 1 << 20);
  assert.equal(h.viaProfiler, h.server);
  assert.equal(h.direct, h.server);
  assert.equal(h.report.status, 'ok');
  assert.equal(h.report.bytes, h.length);
  assert.equal(h.report.deltas, h.events, 'every event split across chunks was read');
  assert.equal(h.report.malformed, null);
});

test("server timing knobs show up: TTFT between the server's wait and the page's first read, TPOT and ITL the page's read pace", async (t) => {
  const r = await run({ query: 'ttft_ms=250&token_ms=30&tokens=20' });
  // The server waits 250 ms, then sends a token every 30 ms. The truth of the same run is the
  // page's own reads: the tap stamps a chunk before the page's read gets it, so TTFT lies
  // between the server's wait and the page's first read (a loaded fresh run read it at 366 ms,
  // past the fixed 350 this held it to), within 1 ms: the report gives whole ms, and WebKit's
  // clock steps by 1 ms. TPOT and the ITL median are the page's read pace.
  const own = r.readTruth;
  t.diagnostic(`ttft ${r.ttft} (the page's first read ${own.ttft.toFixed(1)}), tpot ${r.tpot} (${own.tpot.toFixed(2)}), ITL p50 ${r.itl.p50} (${own.itlP50.toFixed(2)})`);
  assert.ok(r.ttft >= 250 && r.ttft <= own.ttft + 1, `ttft ${r.ttft}, the page's first read ${own.ttft}`);
  assert.ok(Math.abs(r.tpot - own.tpot) <= 2, `tpot ${r.tpot}, the page's reads ${own.tpot}`);
  assert.equal(r.tokens, 20);
  assert.equal(r.tokensSource, 'usage');
  assert.ok(Math.abs(r.itl.p50 - own.itlP50) <= 5, `ITL p50 ${r.itl.p50}, the page's reads ${own.itlP50}`);
});

test('an HTTP error is reported as an error with its status', async () => {
  const r = await run({ query: 'status=503&ttft_ms=0' });
  assert.equal(r.status, 'error');
  assert.equal(r.httpStatus, 503);
  assert.deepEqual(r.error, { kind: 'http', code: '503', message: 'simulated failure' });
  assert.equal(r.format, 'json');
  assert.equal(r.deltas, 0, 'an error body is not answer text');
});

test('an aborted stream is reported as aborted with what arrived before', async () => {
  const r = await run({ query: 'ttft_ms=0&token_ms=20&tokens=100', abortAfter: 300 });
  assert.equal(r.status, 'aborted');
  assert.ok(r.deltas > 3 && r.deltas < 100, `${r.deltas} deltas`);
  assert.equal(r.error.kind, 'aborted');
});

test('a body cancelled by the app (Stop) is reported as aborted, by the application, with what arrived before', async () => {
  const r = await run({ query: 'ttft_ms=0&token_ms=20&tokens=100', cancelAfter: 10 });
  assert.equal(r.status, 'aborted');
  assert.equal(r.error.kind, 'aborted');
  assert.match(r.error.message, /cancelled by the application/);
  assert.ok(r.deltas >= 10 && r.deltas < 100, `${r.deltas} deltas`);
});

test('the summary gives percentiles over the finished streams, within the sketch\'s 1% of the reports\' own figures', async () => {
  const { s, ttfts } = await harness.evaluate(async () => {
    const { Profiler } = await import('/js/index.js');
    const p = new Profiler();
    const ttfts = [];
    const done = new Promise((resolve) => {
      p.onReport((r) => ttfts.push(r.ttft) === 3 && resolve());
    });
    for (const ttft of [100, 200, 300]) {
      const res = await p.fetch(`/v1/chat/completions?ttft_ms=${ttft}&token_ms=5&tokens=5`, { method: 'POST', body: '{}' });
      await res.text();
    }
    await done;
    return { s: p.summary(), ttfts };
  });
  assert.equal(s.count, 3);
  assert.equal(s.ttft.count, 3);
  // The summary's quantiles follow the exact quantile of sorted samples (linear interpolation
  // between the two closest ranks: the p99 of three streams is 98% of the way from the middle one
  // to the slowest, so 298 ms for 100, 200 and 300 ms), and each rank's value is within the
  // sketch's relative accuracy, 1% (ALPHA in src/aggregate/sketch.rs).
  const sorted = ttfts.sort((a, b) => a - b);
  const exact = (q) => {
    const r = q * (sorted.length - 1);
    const lo = Math.floor(r);
    return sorted[lo] + (sorted[Math.ceil(r)] - sorted[lo]) * (r - lo);
  };
  const near = (q, v) => Math.abs(q - v) <= 0.01 * v + 1e-9;
  assert.ok(sorted[0] >= 100 && sorted[1] >= 200 && sorted[2] >= 300, `the server's waits hold: ${sorted}`);
  for (const [name, q] of [['p50', 0.5], ['p90', 0.9], ['p99', 0.99]]) {
    assert.ok(near(s.ttft[name], exact(q)), `${name} ${s.ttft[name]} vs ${exact(q)} from the reports ${sorted}`);
  }
  assert.equal(s.ttftPerceived.count, 0, 'nothing was observed, so nothing perceived');
});

test('a page clock that never moved while measured (resolution Infinity) reaches the report as coarse: fine-timer unavailable, timerMs null', async () => {
  const r = await harness.evaluate(async () => {
    const { Core } = await import('/pkg/tokenpaint_core.js');
    const { Profiler } = await import('/js/index.js');
    const configure = Core.prototype.configure;
    // The shell's measured resolution is the `timer=` line of its one configuration value
    // (js/core/hub.js).
    Core.prototype.configure = function (options) {
      return configure.call(this, options.replace(/^timer=.*$/m, 'timer=Infinity'));
    };
    try {
      const p = new Profiler();
      const report = new Promise((resolve) => p.onReport(resolve));
      const res = await p.fetch('/v1/chat/completions?ttft_ms=0&token_ms=5&tokens=10', { method: 'POST', body: '{}' });
      await res.text();
      const rep = await report;
      p.close();
      return { unavailable: rep.unavailable, timerMs: rep.timerMs, ttft: rep.ttft };
    } finally {
      Core.prototype.configure = configure;
    }
  });
  assert.ok(r.unavailable.includes('fine-timer'), JSON.stringify(r.unavailable));
  assert.equal(r.timerMs, null);
  assert.ok(Number.isInteger(r.ttft), `ttft ${r.ttft}`);
});

test('a container whose text never matches the answer costs a bounded read per change, not the whole text', async () => {
  // The app renders something other than the answer into the observed container (here, 200
  // changes of 100 characters no answer has). The stream stays unclaimed, and every change is a
  // chance to claim it: what tokenpaint reads of the element for that must not grow with the
  // element (it read the whole textContent each time, quadratic over a long answer).
  const r = await harness.evaluate(async () => {
    const { Core } = await import('/pkg/tokenpaint_core.js');
    const { Profiler } = await import('/js/index.js');
    const claims = Core.prototype.claims;
    let calls = 0;
    let chars = 0;
    Core.prototype.claims = function (id, text) {
      calls++;
      chars += text.length;
      return claims.call(this, id, text);
    };
    try {
      const chat = document.getElementById('chat');
      chat.replaceChildren();
      const other = document.createElement('div');
      chat.append(other);
      const p = new Profiler();
      p.observe(chat);
      const report = new Promise((resolve) => p.onReport(resolve));
      const res = await p.fetch('/v1/chat/completions?ttft_ms=0&token_ms=5&tokens=200', { method: 'POST', body: '{}' });
      const reader = res.body.getReader();
      let changes = 0;
      const unrelated = 'λ'.repeat(99) + ' ';
      for (;;) {
        const { done } = await reader.read();
        if (done) break;
        other.append(unrelated);
        changes++;
        await new Promise((r) => setTimeout(r, 0));
      }
      const rep = await report;
      p.close();
      return { calls, chars, changes, length: other.textContent.length, status: rep.status, matched: rep.matchedPct, verdict: rep.verdict };
    } finally {
      Core.prototype.claims = claims;
    }
  });
  assert.ok(r.changes >= 50, `${r.changes} changes`);
  assert.ok(r.calls >= r.changes / 2, `claims was tried ${r.calls} times over ${r.changes} changes`);
  assert.ok(r.chars <= r.calls * 2048, `${r.chars} characters read over ${r.calls} tries (element ${r.length})`);
  assert.notEqual(r.verdict, 'healthy');
});

// Held to what the server and the app recorded in the same run, not to a fixed window: under
// load the simulator's 300 ms sleep itself runs late (431 ms was seen on a loaded machine).
test("the demo: server TTFT 300 ms gives a measured TTFT between the server's own and the app's first delta, and a perceived TTFT not below it", async (t) => {
  const page = await env.lab();
  await page.click('button[data-name="free"]');
  await page.fill('#ttft', '300');
  await page.fill('#tokens', '20');
  await page.click('#send');
  await page.waitForSelector('#report:not([hidden])', { timeout: 20000 });
  const measured = Number(await page.getAttribute('#ttft-measured', 'data-value'));
  const perceived = Number(await page.getAttribute('#ttft-perceived', 'data-value'));
  const truth = await page.evaluate(() => {
    const r = window.tokenpaintProfiler.reports().at(-1);
    const app = Number([...document.querySelectorAll('[data-first-delta-at]')].at(-1).dataset.firstDeltaAt);
    return { server: (r.serverTimings?.queue ?? 0) + r.serverTimings?.ttft, app: app - r.startTime };
  });
  t.diagnostic(`demo: measured TTFT ${measured} ms, perceived ${perceived} ms, the server's ${truth.server}, the app's first delta ${truth.app}`);
  // The knob took effect (Node's timer may fire a fraction of a ms early by performance.now:
  // 299.46 was seen).
  assert.ok(truth.server >= 290, `the server's own TTFT ${truth.server}`);
  assert.ok(measured >= truth.server && measured <= truth.app, `measured ${measured} vs [${truth.server}, ${truth.app}]`);
  assert.ok(perceived >= measured, `perceived ${perceived}`);
  const matched = await page.getAttribute('#matched', 'data-value');
  assert.equal(Number(matched), 100);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a stream that starts before the wasm has loaded is still profiled whole', async () => {
  const page = await env.browser.newPage();
  // The module arrives 400 ms late: the whole 40-token answer is read and shown before it.
  let delayed = 0;
  await page.route('**/*.wasm', async (route) => {
    delayed++;
    await new Promise((r) => setTimeout(r, 400));
    await route.continue();
  });
  await page.goto(`${env.url}/tests/pages/harness.html`);
  const r = await page.evaluate(async () => {
    const { Profiler, wasmMemoryBytes } = await import('/js/index.js');
    const chat = document.getElementById('chat');
    const p = new Profiler();
    p.observe(chat);
    const report = new Promise((resolve) => p.onReport(resolve));
    const res = await p.fetch('/v1/chat/completions?ttft_ms=0&token_ms=2&tokens=40', { method: 'POST', body: '{}' });
    const text = await res.text();
    const out = document.createElement('div');
    chat.append(out);
    for (const m of text.matchAll(/"content":"([^"]+)"/g)) out.append(m[1]);
    const loadedBeforeEnd = wasmMemoryBytes() !== null;
    const late = new Promise((resolve) => setTimeout(() => resolve({ status: 'no report in 10 s' }), 10000));
    return { report: await Promise.race([report, late]), loadedBeforeEnd };
  });
  assert.equal(delayed, 1);
  assert.equal(r.loadedBeforeEnd, false, 'the stream ended before the module loaded');
  assert.equal(r.report.status, 'ok');
  assert.equal(r.report.deltas, 40);
  assert.equal(r.report.matchedPct, 100);
  assert.ok(r.report.ttft > 0 && r.report.ttft < r.report.e2e, JSON.stringify([r.report.ttft, r.report.e2e]));
  // Its commits were read when the module loaded, and the report says so (issue 13).
  assert.ok(r.report.caughtUp, 'caughtUp');
  assert.equal(r.report.caughtUp.tokens, 40);
  assert.ok(r.report.caughtUp.at >= r.report.e2e, JSON.stringify(r.report.caughtUp));
  await page.close();
});

test('appended text is read from the mutation records exactly when they only append at the end', async () => {
  const cases = await harness.evaluate(async () => {
    const { appendedText } = await import('/js/browser/dom.js');
    const { OBSERVE } = await import('/js/browser/watch.js');
    const scenarios = {
      'text nodes appended to the element': (el) => {
        el.append('Hello');
        el.append(' world');
      },
      'a paragraph appended, then text into it': (el) => {
        const p = document.createElement('p');
        el.append(p);
        p.append('new ');
        p.append('paragraph');
      },
      'text appended into the last paragraph': (el) => el.lastChild.append(' more'),
      'text appended into a nested last span': (el) => {
        const span = document.createElement('span');
        el.lastChild.append(span);
        span.append('deep');
        span.firstChild.data += 'er';
      },
      'text appended into a paragraph that is not the last': (el) => el.firstChild.append(' middle'),
      'a node removed': (el) => el.lastChild.remove(),
      // What React does with a text that grows: the same text node, a new nodeValue.
      'the last text node grown in place': (el) => {
        el.lastChild.lastChild.data += '!';
      },
      'the last text node grown twice in one batch': (el) => {
        el.lastChild.lastChild.nodeValue += ' and';
        el.lastChild.lastChild.nodeValue += ' more';
      },
      'grown in place, then a paragraph appended': (el) => {
        el.lastChild.lastChild.data += ' end';
        el.append(document.createElement('p'));
        el.lastChild.append('third');
      },
      'the last text node changed, not grown': (el) => {
        el.lastChild.lastChild.data = 'second pare';
      },
      'the last text node shortened': (el) => {
        el.lastChild.lastChild.data = 'second';
      },
      'a text node grown that is not the last': (el) => {
        el.firstChild.firstChild.data += ' middle';
      },
      'grown, then changed back and grown': (el) => {
        el.lastChild.lastChild.data = 'xx';
        el.lastChild.lastChild.data = 'second para plus';
      },
      'a node inserted before the end': (el) => el.insertBefore(document.createTextNode('x'), el.lastChild),
      'innerHTML replaced': (el) => {
        el.innerHTML = '<p>first para</p><p>second para and more</p>';
      },
    };
    const out = {};
    for (const [name, mutate] of Object.entries(scenarios)) {
      const el = document.createElement('div');
      el.innerHTML = '<p>first para</p><p>second para</p>';
      document.body.append(el);
      const mo = new MutationObserver(() => {});
      mo.observe(el, OBSERVE);
      const before = el.textContent;
      mutate(el);
      const added = appendedText(mo.takeRecords(), el);
      mo.disconnect();
      const after = el.textContent;
      out[name] = { added, grew: after.startsWith(before) ? after.slice(before.length) : null };
      el.remove();
    }
    return out;
  });
  const fast = [
    'text nodes appended to the element',
    'a paragraph appended, then text into it',
    'text appended into the last paragraph',
    'text appended into a nested last span',
    'the last text node grown in place',
    'the last text node grown twice in one batch',
    'grown, then changed back and grown',
  ];
  for (const [name, c] of Object.entries(cases)) {
    if (fast.includes(name)) assert.equal(c.added, c.grew, name);
    else assert.equal(c.added, null, `${name}: read whole (${JSON.stringify(c)})`);
  }
  assert.equal(cases['text appended into a nested last span'].added, 'deeper');
  assert.equal(cases['the last text node grown twice in one batch'].added, ' and more');
  // An append too, but the grown node no longer ends the element: read whole (the cheap path
  // needs each change to be at the end as the DOM stands now).
  assert.equal(cases['grown in place, then a paragraph appended'].added, null);
});

// The lab's highlighter scenario once named tokenpaint's tap as the page's heavy script: a read
// the tap resolves is the entry point of the microtasks after it, the app's render among them.
test("the heavy script of the late frames is never one of tokenpaint's own files", async () => {
  const r = await harness.evaluate(async () => {
    const { heaviest } = await import('/js/browser/longframes.js');
    const at = (path) => new URL(path, location.href).href;
    const frame = (scripts) => ({ scripts: scripts.map(([url, fn, ms]) => ({ sourceURL: at(url), sourceFunctionName: fn, invoker: 'x', duration: ms })) });
    const mixed = heaviest([frame([['/js/transports/tap.js', 'pull', 60], ['/vendor/highlighter.js', 'highlight', 20]]), frame([['/pkg/tokenpaint_core.js', '', 40]])]);
    const ownOnly = heaviest([frame([['/js/transports/tap.js', 'pull', 60]])]);
    // A page of the app's own under a folder named js, deeper than tokenpaint's: the app's.
    const appJs = heaviest([frame([['/www/js/app.js', 'render', 30]])]);
    return { mixed, ownOnly, appJs };
  });
  assert.match(r.mixed[0].url, /\/vendor\/highlighter\.js$/);
  assert.equal(r.mixed[0].ms, 20);
  assert.equal(r.mixed[0].share, 0.5);
  assert.deepEqual(r.ownOnly, [null, 'not-attributed']);
  assert.match(r.appJs[0].url, /\/www\/js\/app\.js$/);
});

test('a cross-origin response without Timing-Allow-Origin lists server-timing as unavailable', async () => {
  holdsCrossOrigin(await harness.evaluate(() => window.crossOrigin()));
});

test('no page errors were raised in the harness', () => {
  assert.deepEqual(harness.errors, []);
});
