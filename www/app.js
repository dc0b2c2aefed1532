// The tokenpaint lab: a chat page that streams from the simulated server (or your own), renders
// the answer the way real chat UIs do, and shows tokenpaint's report. The app's own code (reading
// the stream, rendering) knows nothing of tokenpaint except `profiler.fetch`, and, for the other
// transports (XHR, EventSource, WebSocket, Socket.IO), one `profiler.instrument()` line.
//
// The lab in parts: lab.js (the profiler and what the parts share), scenarios.js, chat.js (the
// app), transports.js, render.js (the renderers), report.js (the report view), charts.js,
// viewer.js (saved files), sweeprun.js with sweep.js (the concurrency sweep), view.js. This
// module draws the live view, runs the slow device, and reads the lab's address.

import { $, profiler, state } from '/www/lab.js';
import { SCENARIOS, pick } from '/www/scenarios.js';
import '/www/chat.js';
import '/www/sweeprun.js';
import { showReport } from '/www/report.js';
import '/www/viewer.js';
import { drawLive } from '/www/charts.js';

export { SCENARIOS } from '/www/scenarios.js';
export { readSaved } from '/www/viewer.js';

profiler.onReport(showReport);
// While an answer streams: its arrived and painted text so far (the live view), drawn at most
// ten times a second so that the lab's own drawing stays small next to the app it measures.
const live = { id: null, points: [], drawn: 0 };
profiler.onProgress((p) => {
  if (p.id !== live.id) {
    live.id = p.id;
    live.points = [];
    live.drawn = 0;
  }
  if (p.t === null || p.painted === null) return;
  live.points.push([p.t, p.arrived, p.painted]);
  const now = performance.now();
  if (now - live.drawn >= 100) {
    live.drawn = now;
    drawLive(live.points, p);
  }
});

// --- a slow device: the scenario run by the demo server in a headless Chromium under the
// DevTools CPU throttle (a page cannot slow its own CPU), its report shown here --------------

$('slow').addEventListener('click', async () => {
  const rate = Number($('slowRate').value);
  if (state.scenario === 'free' || SCENARIOS[state.scenario].load || SCENARIOS[state.scenario].turns) {
    $('slowNote').textContent = 'a named scenario of one answer runs on a slow device (not the free mode, the load or the conversation)';
    return;
  }
  $('slow').disabled = true;
  $('slowNote').textContent = `running in a headless Chromium with a ${rate}× slower CPU…`;
  try {
    const res = await fetch('/lab/slow', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scenario: state.scenario, transport: $('transport').value, rate }) });
    const out = await res.json();
    if (!res.ok) throw new Error(out.error || `HTTP ${res.status}`);
    $('slowNote').textContent = '';
    showReport(out.report, { name: `${SCENARIOS[state.scenario].label}, on a ${rate}× slower CPU (headless Chromium on the demo server)` });
  } catch (e) {
    $('slowNote').textContent = `cannot run it here: ${e.message}`;
  } finally {
    $('slow').disabled = false;
  }
});

// `?scenario=NAME&transport=T&send=1`: the lab opened on a scenario, sent at once (the slow
// device's run uses it); `window.labReport` holds the report that follows.
{
  const q = new URLSearchParams(location.search);
  if (SCENARIOS[q.get('scenario')]) pick(q.get('scenario'));
  if (q.get('transport')) $('transport').value = q.get('transport');
  if (q.get('send') === '1') {
    profiler.onReport((r) => (window.labReport ??= r));
    $('ask').requestSubmit();
  }
}

// Every handler is attached (the module awaited the core and the lab's configuration first): a
// file given to #open before now would have gone unread. The page tests wait for this.
document.documentElement.dataset.lab = 'ready';
