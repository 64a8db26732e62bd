import { type Env, jsonLimits } from '../env';
import type { FieldLimit } from '../input/field-limits';
import type { JsonLimits } from '../input/json-scan';

/** The 413 answer's reason, naming the setting. */
export function describeBodyTooLarge(maxBodyBytes: number): string {
  return `the request body is larger than ${maxBodyBytes} bytes (FUSEBOX_MAX_BODY_BYTES)`;
}

/** The bounds of the execution routes' bodies, read from the environment. */
export interface SandboxLimits {
  /** Bodies larger than this are refused with 413. */
  maxBodyBytes: number;
  /** Bodies nested too deep, or holding too many values, are refused with 422 before they are parsed. */
  json: JsonLimits;
  /** The longest timeout a request may ask for, in seconds (also `/submit`'s `config` timeouts). */
  maxTimeoutS: number;
  runCode: readonly FieldLimit[];
  runJupyter: readonly FieldLimit[];
  createSession: readonly FieldLimit[];
  runCell: readonly FieldLimit[];
}

/**
 * Every count and number the execution routes accept is bounded: `files` and `fetch_files` entries, Jupyter
 * cells, memory limits, and timeouts (a timer of more than 2^31-1 ms fires at once, and a run of hours holds a permit for
 * hours).
 */
export function sandboxLimits(env: Env): SandboxLimits {
  const files = (field: string): FieldLimit => ({
    field,
    kind: 'entries',
    max: env.FUSEBOX_MAX_FILES,
    setting: 'FUSEBOX_MAX_FILES',
  });
  const timeout = (field: string): FieldLimit => ({
    field,
    kind: 'number',
    max: env.FUSEBOX_MAX_TIMEOUT_S,
    setting: 'FUSEBOX_MAX_TIMEOUT_S',
  });
  const memoryLimit: FieldLimit = {
    field: 'memory_limit_MB',
    kind: 'number',
    max: env.FUSEBOX_MAX_MEMORY_LIMIT_MB,
    setting: 'FUSEBOX_MAX_MEMORY_LIMIT_MB',
  };
  return {
    maxBodyBytes: env.FUSEBOX_MAX_BODY_BYTES,
    json: jsonLimits(env),
    maxTimeoutS: env.FUSEBOX_MAX_TIMEOUT_S,
    runCode: [
      timeout('compile_timeout'),
      timeout('run_timeout'),
      memoryLimit,
      files('files'),
      files('fetch_files'),
    ],
    runJupyter: [
      {
        field: 'cells',
        kind: 'entries',
        max: env.FUSEBOX_MAX_JUPYTER_CELLS,
        setting: 'FUSEBOX_MAX_JUPYTER_CELLS',
      },
      timeout('cell_timeout'),
      timeout('total_timeout'),
      memoryLimit,
      files('files'),
      files('fetch_files'),
    ],
    createSession: [
      timeout('cell_timeout'),
      memoryLimit,
      {
        field: 'idle_timeout',
        kind: 'number',
        max: env.FUSEBOX_MAX_SESSION_IDLE_TIMEOUT_S,
        setting: 'FUSEBOX_MAX_SESSION_IDLE_TIMEOUT_S',
      },
      files('files'),
    ],
    runCell: [timeout('timeout')],
  };
}
