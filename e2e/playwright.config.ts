import { defineConfig } from '@playwright/test';
import { API_TOKEN, DASHBOARD_URL } from './stack';

/**
 * Browser tests in Debian's Chromium (`apt-get install chromium`; Playwright's own browser download cannot run
 * here) against a real `fusebox serve`: API, dashboard and Postgres.
 */
export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [
    ['list'],
    ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? 'test-results/report.json' }],
  ],
  use: {
    baseURL: DASHBOARD_URL,
    extraHTTPHeaders: { authorization: `Bearer ${API_TOKEN}` },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'node --import tsx start-stack.ts',
    cwd: import.meta.dirname,
    url: DASHBOARD_URL,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
  },
});
