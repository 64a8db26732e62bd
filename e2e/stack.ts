import { withDatabase } from '@fusebox/db/database-url';
import { TEST_SERVER_URL } from '@fusebox/db/testing';

/** Where the browser tests' own stack listens; chosen away from the defaults so `npm start` can run alongside. */
export const API_PORT = Number(process.env.E2E_API_PORT ?? 18080);
export const DASHBOARD_PORT = Number(process.env.E2E_DASHBOARD_PORT ?? 13000);
export const API_URL = `http://127.0.0.1:${API_PORT}`;
export const DASHBOARD_URL = `http://127.0.0.1:${DASHBOARD_PORT}`;
/**
 * A database of the browser tests' own, recreated empty at every run. `E2E_DATABASE` (with the two ports) lets
 * two runs share the machine without one dropping the other's database.
 */
export const DATABASE_URL = withDatabase(TEST_SERVER_URL, process.env.E2E_DATABASE ?? 'fusebox_test_e2e');
/**
 * The stack runs as a deployment should, with an API token: the dashboard adds it on the server side, and the
 * tests' own calls to the API send it (`extraHTTPHeaders` in playwright.config.ts).
 */
export const API_TOKEN = 'e2e-secret-token';
