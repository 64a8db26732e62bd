import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  type HostileServer,
  type RunAnswer,
  type ServerUser,
  healthProblem,
  startHostileServer,
} from './hostile-server';

// What the sandbox probes share: one server per file, the doors code comes in by, and a Python prelude that
// turns each attempt into a short outcome ("written", "EACCES", …) so a probe can print them all as one JSON
// object and the test can compare the hostile attempt with its control.

/** The doors model-written code comes in by: `/run_code`, `/run_jupyter`, or a cell of an interpreter session. */
export type Route = 'run_code' | 'run_jupyter' | 'session';

/** What code printed, whichever door it came in by. */
export interface Printed {
  stdout: string;
  stderr: string;
}

/** What a test file probes with: its hostile server, and probes run while the server is watched. */
export interface Probes {
  server(): HostileServer;
  /** A Python probe through `route` (see {@link probePython}), the server watched meanwhile: its result. */
  python(route: Route, body: string, timeoutS?: number): Promise<Record<string, unknown>>;
  /** `/run_code`, the server watched meanwhile: its answer. */
  run(language: string, code: string, extra?: Record<string, unknown>): Promise<RunAnswer>;
}

/**
 * One hostile `fusebox serve` for the tests of a file or describe block (started before them, stopped after),
 * run as this test's user or as `user`, and its probes.
 */
export function useProbes(env: Record<string, string> = {}, user?: ServerUser): Probes {
  let started: HostileServer | undefined;
  beforeAll(async () => {
    started = await startHostileServer(env, user);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const server = () => {
    if (!started) throw new Error('the hostile server did not start');
    return started;
  };
  return {
    server,
    python: (route, body, timeoutS) =>
      contained(server(), () => probePython(server(), route, body, timeoutS)),
    run: (language, code, extra) => contained(server(), () => runCode(server(), language, code, extra)),
  };
}

/**
 * Runs `probe` while the server is pinged, fails the test unless the server stayed healthy throughout, and
 * returns what the probe returned.
 */
export async function contained<T>(h: HostileServer, probe: () => Promise<T>): Promise<T> {
  const { result, health } = await h.watch(probe);
  expect(healthProblem(health)).toBeUndefined();
  return result;
}

/**
 * Runs probes at once, the server watched meanwhile, and looks on the host for each one's marked process (each
 * probe starts a process whose command line holds its marker and keeps it up for a few seconds): their results,
 * and how many of the markers the host saw, so a test can show that the runs did overlap.
 */
export async function overlapping<T>(
  h: HostileServer,
  marked: [marker: string, probe: () => Promise<T>][],
): Promise<{ results: T[]; seen: number }> {
  return contained(h, async () => {
    const runs = marked.map(([, probe]) => probe());
    // Awaited below; a probe that fails while the host looks on must not count as unhandled meanwhile.
    for (const run of runs) run.catch(() => undefined);
    const seen = new Set<string>();
    for (let attempt = 0; attempt < 100 && seen.size < marked.length; attempt += 1) {
      for (const [marker] of marked) if (hostProcesses(marker).length > 0) seen.add(marker);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { results: await Promise.all(runs), seen: seen.size };
  });
}

/** `/run_code` that must have been answered about the code, not failed as a sandbox. */
export async function runCode(
  h: HostileServer,
  language: string,
  code: string,
  extra: Record<string, unknown> = {},
): Promise<RunAnswer> {
  const answer = await h.runCode(language, code, extra);
  expect(answer.status, answer.message).not.toBe('SandboxError');
  return answer;
}

/** Parses an answer that must be JSON with status 200 or 201. */
function ok<T>(answer: { status: number; text: string }): T {
  expect([200, 201], answer.text).toContain(answer.status);
  return JSON.parse(answer.text) as T;
}

/** Runs Python code through `route`, with a timeout in seconds; what it printed. */
export async function runPython(
  h: HostileServer,
  route: Route,
  code: string,
  timeoutS = 10,
): Promise<Printed> {
  if (route === 'run_code') {
    const { run_result: run } = await runCode(h, 'python', code, { run_timeout: timeoutS });
    return { stdout: run.stdout, stderr: run.stderr };
  }
  if (route === 'run_jupyter') {
    const answer = ok<{ cells: Printed[] }>(
      await h.post('/run_jupyter', { cells: [code], cell_timeout: timeoutS, total_timeout: timeoutS }),
    );
    const [cell] = answer.cells;
    expect(cell).toBeDefined();
    return { stdout: cell?.stdout ?? '', stderr: cell?.stderr ?? '' };
  }
  const session = await openSession(h);
  try {
    return await session.run(code, timeoutS);
  } finally {
    await session.close();
  }
}

/** A cell's answer on `/v1/sandbox/sessions/:id/run`. */
export interface CellAnswer extends Printed {
  status: string;
  execution_count: number;
  display: { 'text/plain'?: string }[];
  error: { ename: string; evalue: string }[];
}

/** An interpreter session opened over HTTP. */
export interface OpenSession {
  id: string;
  /** Runs a cell; its answer, whatever the HTTP status (a refusal is a probe's finding too). */
  cell(code: string, timeoutS?: number): Promise<{ status: number; text: string }>;
  /** Runs a cell that must be answered with 200; what it printed and how it ended. */
  run(code: string, timeoutS?: number): Promise<CellAnswer>;
  close(): Promise<void>;
}

export async function openSession(
  h: HostileServer,
  body: Record<string, unknown> = {},
): Promise<OpenSession> {
  const { session_id: id } = ok<{ session_id: string }>(await h.post('/v1/sandbox/sessions', body));
  const cell = (code: string, timeoutS = 10) =>
    h.post(`/v1/sandbox/sessions/${id}/run`, { code, timeout: timeoutS });
  return {
    id,
    cell,
    run: async (code, timeoutS) => ok<CellAnswer>(await cell(code, timeoutS)),
    close: async () => {
      await fetch(`${h.url}/v1/sandbox/sessions/${id}`, { method: 'DELETE' }).then((response) =>
        response.text(),
      );
    },
  };
}

/**
 * Helpers every Python probe starts with. `result` collects outcomes; `syscall` calls the kernel directly (x86_64
 * numbers) and answers "ok" or the errno's name; `write` and `read` answer "written" / "read N bytes" or the
 * errno's name, so an attempt that fails and one that was never made look different.
 */
export const PYTHON_PRELUDE = `
import ctypes, errno, json, os, resource, signal, socket, subprocess, sys, time
result = {}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def name(error):
    return errno.errorcode.get(error.errno, type(error).__name__)
def syscall(number, *args):
    ctypes.set_errno(0)
    value = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return "ok" if value >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def write(path, data=b"1\\n", create=False):
    try:
        fd = os.open(path, os.O_WRONLY | (os.O_CREAT if create else 0), 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        return "written"
    except OSError as error:
        return name(error)
def read(path):
    try:
        with open(path, "rb") as f:
            return "read %d bytes" % len(f.read())
    except OSError as error:
        return name(error)
def attempt(action):
    try:
        value = action()
        return "ok" if value is None else value
    except OSError as error:
        return name(error)
    except ValueError as error:
        return "ValueError"
`;

/**
 * Runs a Python probe (the prelude, then `body`, which fills `result`) through `route`, and parses the
 * `result` it printed last.
 */
export async function probePython(
  h: HostileServer,
  route: Route,
  body: string,
  timeoutS = 10,
): Promise<Record<string, unknown>> {
  const { stdout, stderr } = await runPython(
    h,
    route,
    `${PYTHON_PRELUDE}\n${body}\nprint("\\n" + json.dumps(result))`,
    timeoutS,
  );
  const last = stdout.trim().split('\n').at(-1) ?? '';
  expect(last, `the probe did not finish:\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`).toMatch(/^\{/);
  return JSON.parse(last) as Record<string, unknown>;
}

/** `name: outcome` lines a shell probe printed, as a record (the last line of a name wins). */
export function outcomes(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .split('\n')
      .map((line) => /^([\w./-]+): (.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1], match[2]]),
  ) as Record<string, string>;
}

/**
 * A shell function for bash probes: `try NAME COMMAND…` runs the command and prints `NAME: ok`, or
 * `NAME: failed <its first line of error>`.
 */
export const BASH_PRELUDE = `
try() {
  local label=$1
  shift
  local said
  if said=$("$@" 2>&1 >/dev/null); then echo "$label: ok"; else echo "$label: failed \${said%%$'\\n'*}"; fi
}
`;

/** The host's processes whose command line (or, `named`, whose argv[0]) holds `marker`, as `ps` lists them: pid and host uid. */
export function hostProcesses(
  marker: string,
  { named = false }: { named?: boolean } = {},
): { pid: number; uid: number }[] {
  // Each bubblewrap process's argv is its mount plan (about 14 kB): with the warm sandboxes and zygotes of
  // several servers, the listing outgrows execFileSync's 1 MB default.
  return execFileSync('ps', ['-e', '-o', 'pid=,uid=,args='], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, , name, ...args]) => (named ? name : [name, ...args].join(' '))?.includes(marker))
    .map(([pid, uid]) => ({ pid: Number(pid), uid: Number(uid) }));
}
