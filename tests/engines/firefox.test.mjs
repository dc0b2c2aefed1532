// The page, profiler, formats and last-mile tests in Debian's Firefox ESR over WebDriver BiDi
// (puppeteer-core, no browser download): tests/engines/suite.mjs. Firefox has no long animation
// frames (Chromium only), its timer has a resolution of 1 ms here (headless, not cross-origin
// isolated), and it really hides a tab that is not in front.
import { engineTests } from './suite.mjs';
import { setupFirefox } from '../support/helpers.mjs';

engineTests({ name: 'Firefox', setup: setupFirefox, lacks: ['long-animation-frame', 'fine-timer'] });
