import type { CodeExecution, Executor, JupyterExecution } from '@fusebox/local-sandbox/executor';
import { createSandboxClient, isSandboxClientError, type SandboxClient } from '@fusebox/sandbox-client';
import { runCodeRequestSchema, runJupyterRequestSchema } from '@fusebox/sandbox-client/protocol';

/** What `/run_code` and `/run_jupyter` execute on: the local executor, or an upstream SandboxFusion. */
export type CodeRunner = Pick<Executor, 'runCode' | 'runJupyter'>;

/**
 * Beyond the request's own timeouts, how long the upstream may take to answer (its queue, its sandbox set-up,
 * the network) before the call gives up.
 */
const UPSTREAM_SLACK_MS = 60_000;

/** An upstream SandboxFusion as a CodeRunner. */
export interface UpstreamRunner extends CodeRunner {
  /** Its base URL. */
  endpoint: string;
  close(): Promise<void>;
}

/** The upstream did not answer usably (down, retries exhausted, an HTTP error, a malformed body): HTTP 502. */
export class UpstreamSandboxError extends Error {
  constructor(endpoint: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`the upstream SandboxFusion at ${endpoint} did not answer usably: ${reason}`, { cause });
    this.name = 'UpstreamSandboxError';
  }
}

/** SANDBOX_FUSION_URL as its base URL: verl's `sandbox_fusion_url` style (ending in /run_code) is accepted too. */
export function upstreamEndpoint(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/run_code$/, '');
}

/**
 * Runs `/run_code` and `/run_jupyter` on an upstream SandboxFusion (SANDBOX_FUSION_URL) instead of this machine,
 * through `@fusebox/sandbox-client` with its retries of transient failures. Its answers pass through as they
 * are, `SandboxError` included; one that cannot be had rejects with UpstreamSandboxError. The timing's queue
 * wait is 0: the upstream's own queue is part of its run time, which Fusebox cannot see into.
 *
 * @example
 * const upstream = createUpstreamRunner('http://sandbox-fusion:8080');
 * const { response } = await upstream.runCode(request, { signal });
 * await upstream.close();
 */
export function createUpstreamRunner(url: string): UpstreamRunner {
  const endpoint = upstreamEndpoint(url);
  const client: SandboxClient = createSandboxClient({ endpoint });
  const call = async <T>(
    send: () => Promise<T>,
  ): Promise<{ response: T; timing: CodeExecution['timing'] }> => {
    const requestedAt = new Date();
    try {
      const response = await send();
      return {
        response,
        timing: { requestedAt, acquiredAt: requestedAt, finishedAt: new Date(), queueWaitMs: 0 },
      };
    } catch (error) {
      // An abort (client gone, permit lost) is the caller's to handle; anything else is the upstream's fault.
      if (!isSandboxClientError(error)) throw error;
      throw new UpstreamSandboxError(endpoint, error);
    }
  };
  return {
    endpoint,
    async runCode(input, { signal } = {}): Promise<CodeExecution> {
      const request = runCodeRequestSchema.parse(input);
      const timeoutMs = (request.compile_timeout + request.run_timeout) * 1000 + UPSTREAM_SLACK_MS;
      const { response, timing } = await call(() => client.runCode(request, { signal, timeoutMs }));
      const ms = (step: { execution_time: number | null } | null) =>
        step?.execution_time == null ? null : step.execution_time * 1000;
      return {
        response,
        compileMs: ms(response.compile_result),
        runMs: ms(response.run_result),
        outputTruncated: false,
        timing,
      };
    },
    async runJupyter(input, { signal } = {}): Promise<JupyterExecution> {
      const request = runJupyterRequestSchema.parse(input);
      const timeoutMs = request.total_timeout * 1000 + UPSTREAM_SLACK_MS;
      const { response, timing } = await call(() => client.runJupyter(request, { signal, timeoutMs }));
      return { response, outputTruncated: false, timing };
    },
    close: () => client.close(),
  };
}
