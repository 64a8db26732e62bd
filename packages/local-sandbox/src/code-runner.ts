import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandRunResult, RunCodeRequest, RunCodeResponse } from '@fusebox/sandbox-client/protocol';
import { jvmLimits, jvmMinimumMB } from './jvm-memory';
import { unavailableReason } from './language-statuses';
import { LANGUAGE_RUNNERS } from './languages';
import { runJob } from './run-job';
import { runStatus } from './run-status';
import type { SandboxLauncher } from './sandbox-launcher';
import type { SandboxPool } from './sandbox-pool';
import { transpileTypeScript } from './typescript-transpile';
import { RUNTIME_NODE_MODULES } from './runtime-profiles';
import {
  fetchFiles,
  linkWorkdirEntry,
  resolveFetchPaths,
  writeFiles,
  writeWorkdirFile,
} from './workdir-files';

/** A finished `/run_code`, with what only Fusebox reports: step durations and whether output was cut. */
export interface CodeRunOutcome {
  response: RunCodeResponse;
  compileMs: number | null;
  runMs: number | null;
  /** CPU time of all the run's processes together, in ms, from its cgroup (forked runs with cgroups only). */
  cpuMs?: number;
  outputTruncated: boolean;
}

export interface CodeRunnerLimits {
  fetchLimitBytes: number;
}

/**
 * Runs one parsed `/run_code` request in a warm sandbox and answers in SandboxFusion's shape. Failures of the
 * sandbox itself (and refused paths) become `SandboxError` responses; only `signal` aborting rejects.
 */
export async function runCodeRequest(
  request: RunCodeRequest,
  sandboxes: { launcher: SandboxLauncher; pool: SandboxPool; limits: CodeRunnerLimits },
  { signal }: { signal?: AbortSignal } = {},
): Promise<CodeRunOutcome> {
  // Not SandboxFusion's `command not found` (exit 127, Failed): a reward function would score the model's
  // correct program as a failure of its own, where the truth is that this server cannot run it.
  const unavailable = unavailableReason(request.language, sandboxes.launcher);
  const runner = LANGUAGE_RUNNERS[request.language];
  if (unavailable !== undefined || !runner) return sandboxError(unavailable ?? request.language);
  const refused = runner.refuse?.(request.code);
  if (refused !== undefined) return refusedCompile(refused);
  const memoryLimitMB = request.memory_limit_MB > 0 ? request.memory_limit_MB : undefined;
  const jvm = runner.jvm && jvmLimits(memoryLimitMB, runner.jvm);
  if (runner.jvm && !jvm) {
    // Not the JVM's "Could not reserve enough space for object heap": the caller's limit is what does not fit.
    return sandboxError(
      `${request.language} cannot start under memory_limit_MB=${request.memory_limit_MB}: its JVM reserves ` +
        `about ${runner.jvm.reserveMB} MB of address space besides its heap (the limit is RLIMIT_AS), so it needs ` +
        `memory_limit_MB >= ${jvmMinimumMB(runner.jvm)} (or -1 for no limit)`,
    );
  }

  const sandbox = await sandboxes.pool.take();
  try {
    let source = runner.sourceFile(request.code);
    let code = runner.prepare?.(request.code) ?? request.code;
    if (request.language === 'typescript') {
      const transpiled = await transpileTypeScript(code, join(sandbox.workdir.inside, source));
      if (!transpiled.ok)
        return finished(null, { ...emptyStep(), return_code: 1, stderr: transpiled.stderr });
      source = transpiled.fileName.slice(sandbox.workdir.inside.length + 1);
      code = transpiled.code;
    }
    const fetchPaths = resolveFetchPaths(sandbox.workdir, request.fetch_files);
    for (const [path, content] of Object.entries(runner.workdirFiles ?? {}))
      await writeWorkdirFile(sandbox.workdir, path, content);
    await writeFiles(sandbox.workdir, request.files);
    if (runner.nodeModules && existsSync(RUNTIME_NODE_MODULES)) {
      await linkWorkdirEntry(sandbox.workdir, 'node_modules', RUNTIME_NODE_MODULES);
    }
    await writeWorkdirFile(sandbox.workdir, source, code);
    const memoryLimitBytes = memoryLimitMB === undefined ? undefined : memoryLimitMB * 1024 * 1024;
    // Absolute, as SandboxFusion passes them: compilers and tracebacks then name the file the same way.
    const sourcePath = join(sandbox.workdir.inside, source);
    const context = {
      code: request.code,
      jvmOptions: jvm?.options ?? [],
      jars: Object.keys(request.files).filter((path) => path.endsWith('.jar')),
    };
    const run = runner.run(sourcePath, context);
    const result = await runJob(
      sandbox,
      {
        compile: runner.compile
          ? { argv: runner.compile(sourcePath, context), memoryLimitBytes: undefined }
          : undefined,
        run: { argv: jvm?.env.length ? ['env', ...jvm.env, ...run] : run, memoryLimitBytes },
        stdin: request.stdin,
        compileTimeoutMs: request.compile_timeout * 1000,
        runTimeoutMs: request.run_timeout * 1000,
      },
      { signal },
    );
    if (result.sandboxError) return sandboxError(result.sandboxError);
    sandbox.kill();
    const files = await fetchFiles(sandbox.workdir, fetchPaths, sandboxes.limits.fetchLimitBytes);
    const { status, message } = runStatus(
      [result.compile, result.run],
      sandbox.starvedBySharedBudget() ?? result.starved,
    );
    return {
      response: {
        status,
        message,
        compile_result: result.compile,
        run_result: result.run,
        executor_pod_name: null,
        files,
      },
      compileMs: result.compileMs,
      runMs: result.runMs,
      outputTruncated: result.outputTruncated,
    };
  } catch (error) {
    // As SandboxFusion does: whatever goes wrong on the sandbox's side is a SandboxError answer, not a crash.
    if (signal?.aborted) throw error;
    return sandboxError(error instanceof Error ? error.message : String(error));
  } finally {
    sandboxes.pool.release(sandbox);
  }
}

function emptyStep(): CommandRunResult {
  return { status: 'Finished', execution_time: 0, return_code: 0, stdout: '', stderr: '' };
}

function finished(compile: CommandRunResult | null, run: CommandRunResult | null): CodeRunOutcome {
  return {
    response: {
      ...runStatus([compile, run]),
      compile_result: compile,
      run_result: run,
      executor_pod_name: null,
      files: {},
    },
    compileMs: compile ? 0 : null,
    runMs: run ? 0 : null,
    outputTruncated: false,
  };
}

/** SandboxFusion's answer for code its runner refuses: a compile step in `Error` carrying the reason. */
function refusedCompile(reason: string): CodeRunOutcome {
  const compile: CommandRunResult = {
    status: 'Error',
    execution_time: 0,
    return_code: 1,
    stdout: '',
    stderr: reason,
  };
  return { ...finished(compile, null), compileMs: null };
}

function sandboxError(message: string): CodeRunOutcome {
  return {
    response: {
      status: 'SandboxError',
      message,
      compile_result: null,
      run_result: null,
      executor_pod_name: null,
      files: {},
    },
    compileMs: null,
    runMs: null,
    outputTruncated: false,
  };
}
