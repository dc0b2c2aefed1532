// The example's Playwright config: the real @playwright/test runner, Debian's Chromium (no
// browser is downloaded), and the demo server (its simulated model) as the app's backend.
import { defineConfig } from '@playwright/test';

const port = Number(process.env.PORT || 8797);

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.mjs',
  timeout: 60000,
  workers: 1,
  reporter: [['list'], ['json', { outputFile: process.env.REPORT_JSON || 'test-results/report.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: { executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] },
  },
  webServer: {
    command: `node ../../scripts/demo-server.mjs`,
    env: { PORT: String(port), NO_NGINX: '1' },
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
  },
});
