// The page, profiler, formats and last-mile tests in WebKitGTK (Debian's MiniBrowser under Xvfb,
// driven over WebDriver by WebKitWebDriver): tests/engines/suite.mjs. WebKit has no long animation
// frames, and its timer has a resolution of 1 ms.
import { engineTests } from './suite.mjs';
import { setupWebKit } from '../support/helpers.mjs';

engineTests({ name: 'WebKit', setup: setupWebKit, lacks: ['long-animation-frame', 'event-timing', 'fine-timer'], xhrProgressMs: 50 });
