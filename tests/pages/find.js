// The random chat pages of tests/pages/chatpages.js in Chromium (tests/browser/find.test.mjs).
import init, { Profiler } from '/js/index.js';
import { claimCase } from './chatpages.js';

await init();

window.claimCase = (seed) => claimCase(seed, { document, Profiler });
window.findReady = true;
