// Replaying a recorded chat app (issue 58) in a fresh page with tokenpaint's injected script, and
// what must hold of its report against the page's own truth: tests/browser/recordings.test.mjs
// and the real apps' check (tests/realapps/check.mjs) share them.
import assert from 'node:assert/strict';
import { startReplay } from '../../scripts/replay-server.mjs';
import { FRAME } from './helpers.mjs';
import { truthOf } from './truth.mjs';

// The page's paint truth is its own after-paint mark; tokenpaint's paint is the frame's, and their
// times differ by the scheduling of the mark's task (the tests' usual slack).
export const SLACK = 10;

/** The verdicts that say something between the server and the page held the stream back. */
export const BUFFERING = ['intermediary-buffered', 'server-buffered', 'provider-bursts'];

// Each app's wire in one line, and how its answer ends there (read from its recording).
export const RECORDINGS = [
  { app: 'chainlit', file: 'chainlit-2.12.0.json', end: 'whole', by: 'frame', wire: 'Socket.IO over a WebSocket: `client_message` out; `stream_start` with the first token, `stream_token` per token, `new_message` whole, `task_end`' },
  { app: 'streamlit', file: 'streamlit-1.67.0.json', end: 'quiet', by: 'frame', wire: 'one WebSocket of protobuf ForwardMsg frames, each `delta.new_element.markdown` the answer so far; the question a BackMsg rerun' },
  { app: 'nicegui', file: 'nicegui-3.18.0.json', end: 'quiet', by: 'submit', wire: 'Socket.IO over a WebSocket: `update` events with the markdown element\'s rendered HTML whole; the question sent as the input\'s value while typing, the Enter as an event of its own' },
  { app: 'mesop', file: 'mesop-1.3.7.json', end: 'quiet', by: 'request', wire: 'server-sent events over XMLHttpRequest (POST /__ui__), each a base64 protobuf UiResponse whose component tree carries the markdown so far, a few per second' },
  { app: 'marimo', file: 'marimo-0.25.2.json', end: 'marker', by: 'request', wire: 'the question a fetch POST (a Request with its own body); the answer over the notebook\'s WebSocket as `send-ui-element-message` with AI SDK chunks (`text-delta`), ended by `text-end` three levels down' },
  { app: 'solara', file: 'solara-1.64.1.json', end: 'quiet', by: 'submit', wire: 'Jupyter widget messages over a WebSocket: every update a new widget (`comm_open`) whose Vue template holds the rendered markdown; no end; the question sent as the field\'s value while typing' },
  { app: 'gradio', file: 'gradio-6.31.0.json', end: 'marker', by: 'request', reader: 'gradio', wire: 'SSE of `{ msg }` over fetch (`queue/data`): the chatbot whole, then `append` diffs, `process_completed`; the question in a `run/predict` POST' },
  { app: 'open-webui', file: 'open-webui-0.12.4.json', end: 'marker', by: 'request', reader: 'open-webui', wire: 'the question a POST /api/chat/completions answered in JSON; the answer over Socket.IO `events` (`response.output_text.delta`, then `chat:completion` with `done`)' },
  { app: 'shiny', file: 'shiny-1.8.0.json', end: 'marker', by: 'frame', wire: 'a WebSocket of JSON messages: the question an `update` of the chat input; `custom.shinyChatMessage` actions, `chunk_start`, a `chunk` per token three levels down, `chunk_end`' },
  { app: 'panel', file: 'panel-1.10.0.json', end: 'quiet', by: 'frame', wire: 'the Bokeh document protocol over a WebSocket (a header frame, a buffers frame and a content frame per message): the first words in the `PATCH-DOC` whose `ModelChanged children` creates the markdown pane (escaped HTML 18 levels down), then an `html_stream` patch per token; no end' },
  { app: 'rio', file: 'rio-0.12.3.json', end: 'quiet', by: 'frame', wire: 'JSON-RPC over a WebSocket: the question a `componentMessage`; `updateComponentStates` with the changed components by id, the markdown\'s whole text so far each time; no end' },
  { app: 'pywebio', file: 'pywebio-1.8.4.json', end: 'quiet', by: 'frame', wire: 'a WebSocket of commands: the question a `from_submit` event; each step an `output_ctl` that clears the answer\'s scope and an `output` of the markdown so far aimed at it (`scope`), among the question\'s and the form\'s commands; no end' },
  // Issue 71's trial: two apps not developed against, of the classes the issue held back.
  { app: 'wave', file: 'wave-1.8.16.json', end: 'quiet', by: 'frame', wire: 'H2O Wave\'s page protocol over a WebSocket: the question a frame of the chatbot\'s arguments; each step a frame of operations on the page (`{"d": [{"k": "chat.data.-1", "v": [...]}]}`), the last row set to the answer so far; no end' },
  { app: 'fasthtml', file: 'fasthtml-0.14.14.json', end: 'quiet', by: 'frame', wire: 'htmx\'s WebSocket extension: the question a JSON frame of the form; text frames of HTML swapped out of band (the question\'s bubble, a fresh input, an empty answer bubble), then a `<span id="reply-N" hx-swap-oob="beforeend">` per token; no end' },
];

/**
 * One replay in a fresh page: the question typed into the app's own prompt and sent with Enter.
 * Returns the reports, the page's truth and errors.
 */
export async function replay(browser, inject, r, options) {
  const server = await startReplay(`tests/recordings/${r.file}`);
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  if (process.env.TPDBG) page.on('console', (m) => m.text().startsWith('TPDBG') && console.log(m.text()));
  const got = [];
  await page.exposeBinding('__tokenpaint', (_src, json) => got.push(JSON.parse(json)));
  await page.addInitScript((o) => (globalThis.tokenpaintOptions = o), { includeText: true, ...options });
  // The page's truth observes the DOM with an observer made before tokenpaint's (its callback
  // comes first): tests/pages/replay.js takes it.
  await page.addInitScript(() => {
    let cb = () => {};
    const mo = new MutationObserver((records) => cb(records));
    window.__truthObserver = (f) => ((cb = f), mo);
  });
  await page.addInitScript({ content: inject });
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => window.replayReady === true, null, { timeout: 30000 });
    const input = page.locator(server.rec.prompt).first();
    await input.click();
    await input.fill(server.rec.question);
    await input.press('Enter');
    await page.waitForFunction(() => window.replayDone === true, null, { timeout: 30000 });
    const reports = () => got.filter((m) => m.type === 'report').map((m) => m.report);
    for (const until = Date.now() + 15000; reports().length < 1 && Date.now() < until; ) await new Promise((res) => setTimeout(res, 100));
    // A report that should not come (a heartbeat, a side request, a layout frame) would come by now.
    await new Promise((res) => setTimeout(res, 2000));
    const truth = await page.evaluate(() => window.truth);
    return { reports: reports(), truth, errors, rec: server.rec };
  } finally {
    await page.close();
    await server.close();
  }
}

/** What must hold of one replayed answer; `read` checks how it was read. */
export function holds(t, r, got, read) {
  const { reports, truth, errors, rec } = got;
  t.diagnostic(reports.map((x) => `${x.format} ${JSON.stringify(x.read)} start ${JSON.stringify(x.start)} at ${x.startTime}: ttft ${x.ttft}, perceived ${x.ttftPerceived?.painted}, lag p50 ${x.lag?.p50}, matched ${x.matchedPct}%, ${x.status}, ${x.diagnosis?.map((d) => d.verdict)}`).join('\n'));
  assert.equal(reports.length, 1, `${r.app}: one report for the answer and none else: ${reports.map((x) => x.url)}`);
  const [x] = reports;
  assert.equal(x.status, 'ok', `${r.app}: ${JSON.stringify(x.error)}`);
  read(x);
  assert.ok(x.matchedPct >= 99, `${r.app}: matched ${x.matchedPct}`);
  // The start: the request or frame that carried the question, as the page itself sent it.
  assert.equal(x.start.by, r.by, `${r.app}: start ${JSON.stringify(x.start)}`);
  const ask = truth.askAt ?? truth.submitAt;
  assert.ok(Math.abs(x.startTime - ask) <= 5, `${r.app}: start ${x.startTime} against the page's own ${ask} (${r.by})`);
  assert.equal(x.read.end, r.end, `${r.app}: read.end ${x.read.end}`);
  const own = truthOf(x, truth);
  t.diagnostic(`${r.app}: the page's own first text ${own.firstText?.toFixed(1)} ms, painted ${own.firstPaint?.toFixed(1)} ms, lag p50 ${own.lagP50?.toFixed(1)} ms (${own.shown} of ${own.records} records shown)`);
  // The answer's first words arrived before the page showed them (1 ms: the clocks' resolution),
  // and each record was committed within a frame of the page's change that showed it.
  assert.ok(x.ttft <= own.firstText + 1, `${r.app}: measured TTFT ${x.ttft} after the page's first text ${own.firstText}`);
  assert.ok(own.commitDiff !== null && own.commitDiff <= FRAME, `${r.app}: a commit ${own.commitDiff} ms from the page's change that showed it: ${JSON.stringify(own.commitWorst)} of ${JSON.stringify(x.timeline.arrived.slice(0, 3))}…, committed ${JSON.stringify(x.timeline.committed)}`);
  const perceived = x.ttftPerceived && x.ttftPerceived.painted;
  assert.ok(perceived >= own.firstText - SLACK && perceived <= own.firstPaint + 2 * FRAME + SLACK, `${r.app}: perceived TTFT ${perceived} against the page's first text ${own.firstText} and its paint ${own.firstPaint}`);
  assert.ok(Math.abs(x.lag.p50 - own.lagP50) <= 2 * FRAME + SLACK, `${r.app}: lag p50 ${x.lag.p50} against the page's ${own.lagP50}`);
  // The streams are direct and steady: nothing between the app's server and the page holds them
  // back. (What the page does with them is the page's: Solara's live page, slowed by the
  // recorders, shows the answer only once it is whole, and says so.)
  assert.ok(!x.diagnosis.some((d) => BUFFERING.includes(d.verdict)), `${r.app}: ${x.diagnosis.map((d) => d.verdict)}`);
  assert.equal(x.element && x.element.how, 'document');
  assert.deepEqual(errors, [], `${r.app}: page errors: ${errors.slice(0, 3).join('; ')}`);
}

