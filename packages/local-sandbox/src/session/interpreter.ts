import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { JupyterCellError } from '@fusebox/sandbox-client/protocol';
import { outputText } from '../capped-output';
import type { StarvationCounters } from '../cgroups';
import type { LineChannel } from '../line-channel';
import type { ExitStatus } from '../spawner';
import { StepTimer } from '../step-timer';

/** The Python source of the session interpreter; it runs with `python3 -c`, so the sandbox needs no file of ours. */
const KERNEL_SOURCE = readFileSync(new URL('./kernel.py', import.meta.url), 'utf8');

/**
 * The command a warm interpreter sandbox runs; its files may be at most `fileSizeBytes`, it dumps no core, and
 * it has at most `maxProcesses` processes and threads (see `sandboxProcessLimit`).
 */
export function interpreterCommand(fileSizeBytes: number, maxProcesses: number | undefined): string[] {
  return ['/usr/bin/python3', '-c', KERNEL_SOURCE, String(fileSizeBytes), String(maxProcesses ?? -1)];
}

/**
 * How a cell ended: `ok`; `error` (it raised: see `error`); `timeout` (it overran and the interpreter was
 * stopped); `died` (it crashed the interpreter). After `timeout` or `died` the interpreter is gone.
 */
export type CellStatus = 'ok' | 'error' | 'timeout' | 'died';

/** The `ename` of the one error a cell that crashed the interpreter (`died`) reports: written by the host. */
export const DEAD_KERNEL_ERROR = 'DeadKernelError';

/**
 * One cell's outcome, in Jupyter's terms: printed output, displayed values (`text/plain` is the repr of a
 * trailing expression) and raised exceptions.
 */
export interface CellResult {
  /** The cell's number, as in `In [n]`. */
  executionCount: number;
  status: CellStatus;
  stdout: string;
  stderr: string;
  display: Record<string, unknown>[];
  error: JupyterCellError[];
  /** Wall-clock seconds, as SandboxFusion's `execution_time`. */
  executionTime: number;
  outputTruncated: boolean;
  /**
   * Lines on the interpreter's reply channel that answered no cell (not JSON, not a reply, or another cell's
   * id) and were ignored while this cell ran: the cell's own code wrote them, since it can reach the channel.
   */
  strayLines: number;
  /**
   * Why a cell that timed out or died did so for want of the budget all sandboxes share, which other runs held
   * (see `SandboxCgroup.starvedBySharedBudget`): set only when the kernel refused a fork or killed a process of
   * this sandbox while this cell ran. A cell that raised never has it: the cell's own code chose to raise, and a
   * policy that raises on seeing a refused fork would otherwise pick when its failures count as the sandbox's.
   */
  starved?: string;
}

export interface InterpreterSettings {
  outputLimitBytes: number;
  /** Address-space limit of the interpreter process; undefined for none. */
  memoryLimitBytes: number | undefined;
  /** The number of the first cell (Jupyter's execution count). */
  firstCell: number;
}

/**
 * The process an interpreter runs in, as kernel.py sees its fds 3 (control) and 4 (events): a warm sandbox, or a
 * session forked from a session zygote (see session-zygote.ts).
 */
export interface KernelProcess {
  readonly control: { write(text: string): unknown };
  readonly events: LineChannel;
  /** Resolves once the interpreter's processes are gone. */
  readonly closed: Promise<ExitStatus>;
  readonly alive: boolean;
  /** Kills every process of the interpreter at once; safe to call any number of times. */
  kill(): void;
  starvationCounters(): StarvationCounters | undefined;
  starvedBySharedBudget(since?: StarvationCounters): string | undefined;
}

interface KernelReply {
  id: string;
  count: number;
  stdout: string;
  stdout_bytes: number;
  stderr: string;
  stderr_bytes: number;
  display: Record<string, unknown>[];
  error: JupyterCellError[];
}

/**
 * A persistent Python interpreter in its own sandbox: cells run one after another in one namespace, so state
 * is kept between them. A cell that overruns its timeout kills the sandbox (the state is lost).
 */
export class Interpreter {
  readonly process: KernelProcess;
  readonly #outputLimit: number;
  #nextCell: number;
  #alive = true;

  /** Configures a kernel that has said `ready` (see {@link interpreterCommand}). */
  constructor(process: KernelProcess, settings: InterpreterSettings) {
    this.process = process;
    this.#outputLimit = settings.outputLimitBytes;
    this.#nextCell = settings.firstCell;
    process.control.write(
      `${JSON.stringify({
        output_limit: settings.outputLimitBytes,
        memory_limit: settings.memoryLimitBytes ?? 0,
        first_cell: settings.firstCell,
      })}\n`,
    );
  }

  get alive(): boolean {
    return this.#alive && this.process.alive;
  }

  /**
   * Runs one cell. Resolves with its result even when it times out or crashes the interpreter; rejects only
   * when `signal` aborts (the interpreter is then stopped).
   */
  async run(
    code: string,
    { timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<CellResult> {
    signal?.throwIfAborted(); // aborted before it started (while the interpreter was being made): never runs
    const executionCount = this.#nextCell;
    this.#nextCell += 1;
    const started = performance.now();
    let timedOut = false;
    const timer = new StepTimer();
    timer.arm(timeoutMs, () => {
      timedOut = true;
      this.stop();
    });
    const onAbort = () => this.stop();
    signal?.addEventListener('abort', onAbort, { once: true });
    // The host's own reading, before the cell: the counters are the sandbox's, and earlier cells' count in them.
    const countersBefore = this.process.starvationCounters();
    try {
      // A fresh id per cell: the reply must carry it, so nothing written earlier (by this cell's code or an
      // earlier one's, which can reach the channel) can be taken for this cell's answer or shift later ones.
      // What the reply says is still the cell's to shape, since the cell runs in the interpreter's process
      // (README: "What an interpreter's reply can be made to say"); rewards never read it.
      const id = randomBytes(16).toString('hex');
      this.process.control.write(`${JSON.stringify({ id, code })}\n`);
      let reply: KernelReply | undefined;
      let strayLines = 0;
      let line: string | undefined;
      while ((line = await this.process.events.next()) !== undefined) {
        if (line === '') continue; // the kernel starts each reply on a line of its own
        reply = kernelReply(line, id);
        if (reply) break;
        strayLines += 1;
      }
      const executionTime = (performance.now() - started) / 1000;
      signal?.throwIfAborted();
      if (reply === undefined || timedOut) {
        // The channel ended (the interpreter died, or a line overran its limit) or the cell overran: either way
        // nothing more can be heard from this interpreter.
        this.stop();
        const exit = await this.process.closed;
        const result = timedOut
          ? lost(
              executionCount,
              'timeout',
              executionTime,
              'TimeoutError',
              `the cell did not finish within ${timeoutMs / 1000} s; the interpreter was stopped and its state is lost`,
            )
          : lost(
              executionCount,
              'died',
              executionTime,
              DEAD_KERNEL_ERROR,
              `the interpreter died while running this cell (exit status ${exit.code ?? `signal ${exit.signal}`}); its state is lost`,
            );
        const starved = countersBefore && this.process.starvedBySharedBudget(countersBefore);
        return { ...result, strayLines, ...(starved === undefined ? {} : { starved }) };
      }
      const stdout = Buffer.from(reply.stdout, 'base64');
      const stderr = Buffer.from(reply.stderr, 'base64');
      return {
        executionCount,
        status: reply.error.length > 0 ? 'error' : 'ok',
        stdout: outputText(stdout, reply.stdout_bytes, this.#outputLimit),
        stderr: outputText(stderr, reply.stderr_bytes, this.#outputLimit),
        display: reply.display,
        error: reply.error,
        executionTime,
        outputTruncated: reply.stdout_bytes > stdout.length || reply.stderr_bytes > stderr.length,
        strayLines,
      };
    } finally {
      timer.clear();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Kills the interpreter's sandbox; the session's state is gone. */
  stop(): void {
    this.#alive = false;
    this.process.kill();
  }
}

function lost(
  executionCount: number,
  status: 'timeout' | 'died',
  executionTime: number,
  ename: string,
  evalue: string,
): CellResult {
  return {
    executionCount,
    status,
    stdout: '',
    stderr: '',
    display: [],
    error: [{ traceback: [`${ename}: ${evalue}`], ename, evalue }],
    executionTime,
    outputTruncated: false,
    strayLines: 0,
  };
}

/**
 * The reply to the cell `id` if `line` is one, else undefined. The line is already length-capped (the events
 * channel ends past its limit); JSON.parse and the checks below are linear in it.
 */
function kernelReply(line: string, id: string): KernelReply | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const reply = value as Partial<Record<keyof KernelReply, unknown>>;
  const count = (field: unknown) => Number.isSafeInteger(field) && (field as number) >= 0;
  const entries = (field: unknown) =>
    Array.isArray(field) && field.every((entry) => typeof entry === 'object' && entry !== null);
  const tracebacks = (field: unknown) =>
    entries(field) &&
    (field as Record<string, unknown>[]).every(
      (error) =>
        typeof error.ename === 'string' &&
        typeof error.evalue === 'string' &&
        Array.isArray(error.traceback) &&
        error.traceback.every((text) => typeof text === 'string'),
    );
  if (
    reply.id !== id ||
    !count(reply.count) ||
    typeof reply.stdout !== 'string' ||
    typeof reply.stderr !== 'string' ||
    !count(reply.stdout_bytes) ||
    !count(reply.stderr_bytes) ||
    !entries(reply.display) ||
    !tracebacks(reply.error)
  ) {
    return undefined;
  }
  return reply as KernelReply;
}
