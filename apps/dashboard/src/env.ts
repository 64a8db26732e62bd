import { z } from 'zod';
import type { ApiAddress } from './components/first-execution';

/** The dashboard server's settings. `fusebox serve` passes them when it starts the dashboard. */
const envSchema = z.object({
  FUSEBOX_API_URL: z.url().default('http://127.0.0.1:8080'),
  FUSEBOX_API_TOKEN: z.string().min(1).optional(),
});

export const env = envSchema.parse({
  FUSEBOX_API_URL: process.env.FUSEBOX_API_URL || undefined,
  FUSEBOX_API_TOKEN: process.env.FUSEBOX_API_TOKEN || undefined,
});

/** What pages may show of the API: its address, and whether it asks for a token. */
export const apiAddress: ApiAddress = {
  url: env.FUSEBOX_API_URL,
  tokenRequired: env.FUSEBOX_API_TOKEN !== undefined,
};
