import { z } from 'zod';

/**
 * The overall outcome of `/run_code` or `/run_jupyter`: `Failed` is the user's code (non-zero exit, timeout,
 * compile error), `SandboxError` is the sandbox's fault and still arrives with HTTP 200.
 *
 * @example
 * runStatusSchema.parse('Failed');
 */
export const runStatusSchema = z.enum(['Success', 'Failed', 'SandboxError']);

/** @example if (response.status === ('SandboxError' satisfies RunStatus)) retryLater(); */
export type RunStatus = z.output<typeof runStatusSchema>;
