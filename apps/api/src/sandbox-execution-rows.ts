import { storableText } from '@fusebox/db/storable';
import type { RunCodeRequest, RunJupyterRequest } from '@fusebox/sandbox-client/protocol';
import type { CodeExecution, JupyterExecution } from '@fusebox/local-sandbox/executor';
import type { CellExecution } from '@fusebox/local-sandbox/sessions';
import type { ExecutionTiming } from './execution-gate';
import type { ExecutionRow } from './execution-recorder';
import { WORKER_ID } from './worker-id';

/** Characters of stdout and of stderr kept per row; the response itself carries the full (capped) output. */
const STORED_OUTPUT_CHARS = 64 * 1024;
/** Characters of code kept per row. */
const STORED_CODE_CHARS = 1024 * 1024;

/** Text as Postgres can store it and no longer than `limit`, with a note when cut. */
function stored(text: string, limit: number): string {
  const clean = storableText(text);
  return clean.length <= limit
    ? clean
    : `${clean.slice(0, limit)}\n[cut to ${limit} of ${clean.length} characters]`;
}

function timing(execution: { timing: ExecutionTiming }) {
  return {
    requestedAt: execution.timing.requestedAt,
    acquiredAt: execution.timing.acquiredAt,
    finishedAt: execution.timing.finishedAt,
    queueWaitMs: execution.timing.queueWaitMs,
    workerId: WORKER_ID,
  };
}

/** What a row says of the request itself, answered or not. */
export type RequestFields = Pick<ExecutionRow, 'source' | 'language' | 'code' | 'stdin'>;

export function runCodeRequestFields(request: RunCodeRequest): RequestFields {
  return {
    source: 'run_code',
    language: request.language,
    code: stored(request.code, STORED_CODE_CHARS),
    stdin: request.stdin === null ? null : stored(request.stdin, STORED_OUTPUT_CHARS),
  };
}

export function runJupyterRequestFields(request: RunJupyterRequest): RequestFields {
  return {
    source: 'run_jupyter',
    language: 'python',
    code: stored(request.cells.join('\n# %%\n'), STORED_CODE_CHARS),
  };
}

export function cellRequestFields(code: string): RequestFields {
  return { source: 'sandbox_cell', language: 'python', code: stored(code, STORED_CODE_CHARS) };
}

/**
 * The row for a request that got no execution's answer: refused (429, 503, …), abandoned by its client, or
 * failed; `message` says which and why.
 */
export function unansweredRow(
  request: RequestFields,
  status: string,
  message: string,
  requestedAt: Date,
): ExecutionRow {
  return {
    ...request,
    status,
    message: stored(message, STORED_OUTPUT_CHARS),
    requestedAt,
    finishedAt: new Date(),
    workerId: WORKER_ID,
  };
}

/** The routes whose refused bodies are recorded: the run routes, and a stateful session's cells. */
export type RefusableSource = 'run_code' | 'run_jupyter' | 'sandbox_cell';

/** What a row names as the language of a request that did not say one. */
const NO_LANGUAGE = '(none)';
/** Characters of a refused request's language kept: a real one is a short name. */
const STORED_LANGUAGE_CHARS = 64;

/**
 * The row for a body refused with 422 before it ran (`Refused`, pydantic's complaints as its message), with what
 * of the request could be read: its code or cells, and its language when it sent one as a string.
 */
export function invalidRequestRow(
  source: RefusableSource,
  received: unknown,
  detail: readonly { loc: readonly (string | number)[]; msg: string }[],
  requestedAt: Date,
): ExecutionRow {
  const body = (typeof received === 'object' && received !== null ? received : {}) as Record<string, unknown>;
  const cells = Array.isArray(body.cells)
    ? body.cells.filter((cell): cell is string => typeof cell === 'string')
    : [];
  const code =
    source === 'run_jupyter' ? cells.join('\n# %%\n') : typeof body.code === 'string' ? body.code : '';
  const language =
    source !== 'run_code' ? 'python' : typeof body.language === 'string' ? body.language : NO_LANGUAGE;
  const complaints = detail.map((entry) => `${entry.loc.join('.')}: ${entry.msg}`).join('; ');
  return unansweredRow(
    { source, language: stored(language, STORED_LANGUAGE_CHARS), code: stored(code, STORED_CODE_CHARS) },
    'Refused',
    `422 ${complaints}`,
    requestedAt,
  );
}

/**
 * The row for a request refused before its body was read (too large, or not JSON): `Refused`, with the status and
 * detail it was answered; its code and language are unknown.
 */
export function unreadRequestRow(
  source: RefusableSource,
  status: number,
  detail: string,
  requestedAt: Date,
): ExecutionRow {
  return unansweredRow(
    { source, language: NO_LANGUAGE, code: '' },
    'Refused',
    `${status} ${detail}`,
    requestedAt,
  );
}

/** The row for one `/run_code`. */
export function runCodeRow(request: RunCodeRequest, execution: CodeExecution): ExecutionRow {
  const { response } = execution;
  const last = response.run_result ?? response.compile_result;
  return {
    ...runCodeRequestFields(request),
    status: response.status,
    message: stored(response.message, STORED_OUTPUT_CHARS),
    compileStatus: response.compile_result?.status ?? null,
    runStatus: response.run_result?.status ?? null,
    returnCode: last?.return_code ?? null,
    stdout: stored(last?.stdout ?? '', STORED_OUTPUT_CHARS),
    stderr: stored(last?.stderr ?? '', STORED_OUTPUT_CHARS),
    outputTruncated: execution.outputTruncated,
    compileMs: execution.compileMs,
    runMs: execution.runMs,
    ...timing(execution),
  };
}

/** The row for one `/run_jupyter`: the cells joined with `# %%` markers, their outputs and errors joined. */
export function runJupyterRow(request: RunJupyterRequest, execution: JupyterExecution): ExecutionRow {
  const { response } = execution;
  const errors = response.cells.flatMap((cell) =>
    cell.error.map((error) => `${error.ename}: ${error.evalue}\n`),
  );
  return {
    ...runJupyterRequestFields(request),
    status: response.status,
    message: stored(response.message, STORED_OUTPUT_CHARS),
    runStatus: response.driver?.status ?? null,
    returnCode: response.driver?.return_code ?? null,
    stdout: stored(response.cells.map((cell) => cell.stdout).join(''), STORED_OUTPUT_CHARS),
    stderr: stored([...response.cells.map((cell) => cell.stderr), ...errors].join(''), STORED_OUTPUT_CHARS),
    outputTruncated: execution.outputTruncated,
    runMs:
      response.driver?.execution_time === null || response.driver === null
        ? null
        : response.driver.execution_time * 1000,
    ...timing(execution),
  };
}

/**
 * The row for one session cell: `Success` when it ran without raising, else `Failed`, or `SandboxError` when it
 * timed out or died because other runs starved it of the budget all sandboxes share.
 */
export function cellRow(code: string, cell: CellExecution): ExecutionRow {
  const errors = cell.error.map((error) => `${error.ename}: ${error.evalue}\n`).join('');
  return {
    ...cellRequestFields(code),
    status: cell.starved !== undefined ? 'SandboxError' : cell.status === 'ok' ? 'Success' : 'Failed',
    ...(cell.starved === undefined ? {} : { message: stored(cell.starved, STORED_OUTPUT_CHARS) }),
    runStatus: cell.status === 'timeout' ? 'TimeLimitExceeded' : 'Finished',
    returnCode: cell.status === 'ok' ? 0 : cell.status === 'error' ? 1 : null,
    stdout: stored(cell.stdout, STORED_OUTPUT_CHARS),
    stderr: stored(cell.stderr + errors, STORED_OUTPUT_CHARS),
    outputTruncated: cell.outputTruncated,
    runMs: cell.executionTime * 1000,
    ...timing(cell),
  };
}

/** The row for a session cell aborted because its global permit was lost: a SandboxError, never a success. */
export function lostCellRow(code: string, lost: Error, when: ExecutionTiming): ExecutionRow {
  return {
    ...cellRequestFields(code),
    status: 'SandboxError',
    message: stored(lost.message, STORED_OUTPUT_CHARS),
    ...timing({ timing: when }),
  };
}
