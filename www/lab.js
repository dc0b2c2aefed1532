// The lab's page: the profiler every part of the lab shares (made once, before any of them
// runs), the lab's configuration from the demo server, and what the parts share of the page's
// state. The app's own code (reading the stream, rendering) knows nothing of tokenpaint except
// `profiler.fetch`, and, for the other transports (XHR, EventSource, WebSocket, Socket.IO), one
// `profiler.instrument()` line.

import init, { Profiler } from '/js/index.js';

export const $ = (id) => document.getElementById(id);
export const messages = $('messages');

await init();
// Each report carries its saved timeline: an export opened again is analysed again by this build.
export const profiler = new Profiler({ slo: { ttftPerceived: { p95: 1000 }, tpot: { p50: 50 } }, saveTimeline: true });
profiler.observe(messages);
window.tokenpaintProfiler = profiler; // for the curious, and for the page tests
// Every other transport is profiled by one line; fetch goes through profiler.fetch as before.
export const transport = () => $('transport').value;
profiler.instrument({ match: (url) => transport() !== 'fetch' && /\/v1\/(chat\/completions|ws)|\/socket\.io\//.test(url) });
export const lab = await (await fetch('/lab/config')).json();

/** What the parts share: the scenario picked, and the sweep's settings of the built-in server. */
export const state = { scenario: 'healthy', sweepShared: null };
