import type { RunCodeRequestInput } from '@fusebox/sandbox-client/protocol';
import { describe, expect, it } from 'vitest';
import type { CodeExecution } from '../src/executor';
import { useExecutor } from './use-executor';
import { forkedPython } from './zygote-helpers';

const cold = useExecutor({ concurrency: 1 });
const forked = useExecutor({ concurrency: 1, pythonZygote: true });
/** Its runs' pid 1 a copy of the zygote, as where run-init.c is not built (`forked` uses run-init when it is). */
const forkedBesideCopy = useExecutor({ concurrency: 1, pythonZygote: true, pythonRunInit: null });

/**
 * Programs whose every observable result must be the same run forked from a zygote as run by a fresh
 * `python3 file.py`: `__name__`, argv, `__file__`, cwd, stdin, exit statuses (sys.exit, uncaught exceptions,
 * signals, os._exit), atexit, finalizers and unclosed files at exit, threads, multiprocessing, subprocess, output order, syntax errors, the memory limit
 * and the timeout.
 */
const PROGRAMS: Record<string, { code: string; request?: Partial<RunCodeRequestInput> }> = {
  'main module': {
    code: [
      'import os, sys, __main__',
      'print(__name__, __main__.__name__, __spec__, __main__.__file__ == __file__ == sys.argv[0])',
      'print(len(sys.argv), os.path.isabs(__file__), os.path.dirname(__file__) == os.getcwd() == sys.path[0])',
      'print(os.path.basename(__file__).endswith(".py"), __builtins__.__name__, sys.flags.isolated)',
      'print(__cached__, type(__loader__).__name__, os.getuid(), os.getgid())',
    ].join('\n'),
  },
  stdin: {
    code: 'import sys\nprint(input())\nprint(repr(sys.stdin.read()))\nsys.stdin.seek(0)\nprint(sys.stdin.readline())',
    request: { stdin: 'first\nsecond\n' },
  },
  'input at end of file': { code: 'input()' },
  'sys.exit with a number': { code: 'print("out")\nimport sys\nsys.exit(3)' },
  'sys.exit with a message': { code: 'import sys\nsys.exit("bye")' },
  'sys.exit(None)': { code: 'import sys\nsys.exit()' },
  'an uncaught exception': {
    code: 'def f():\n    raise ValueError("bad")\ntry:\n    f()\nexcept ValueError as e:\n    raise KeyError(1) from e',
  },
  KeyboardInterrupt: { code: 'raise KeyboardInterrupt' },
  'a syntax error': { code: 'print(1)\ndef f(:\n  pass' },
  'an indentation error': { code: 'if True:\nprint(1)' },
  'os._exit': {
    code: 'import atexit, os\natexit.register(print, "not run")\nprint("x", flush=True)\nos._exit(5)',
  },
  'killed by SIGTERM': {
    code: 'import os, signal\nprint("before", flush=True)\nos.kill(os.getpid(), signal.SIGTERM)',
  },
  'killed by SIGKILL': { code: 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)' },
  'a signal handler': {
    code: 'import os, signal\nsignal.signal(signal.SIGUSR1, lambda *a: print("handled"))\nos.kill(os.getpid(), signal.SIGUSR1)\nprint("after")',
  },
  'atexit and buffered output': {
    code: 'import atexit, sys\natexit.register(lambda: print("at exit"))\nprint("main")\nsys.stderr.write("err\\n")',
  },
  'finalizers and open files at exit': {
    code: [
      'import os',
      'class Noisy:',
      '    def __del__(self):',
      '        print("finalized")',
      'noisy = Noisy()',
      'out = os.fdopen(os.dup(1), "w")',
      'out.write("left in an unclosed file\\n")',
      'print("main")',
    ].join('\n'),
  },
  'a thread that outlives main': {
    code: 'import threading, time\ndef late():\n    time.sleep(0.2)\n    print("thread done")\nthreading.Thread(target=late).start()\nprint("main done")',
  },
  multiprocessing: {
    code: [
      'import multiprocessing as mp',
      'def square(x):',
      '    return x * x',
      'if __name__ == "__main__":',
      '    with mp.Pool(2) as pool:',
      '        print(pool.map(square, range(5)))',
      '    p = mp.Process(target=print, args=("child",))',
      '    p.start(); p.join(); print(p.exitcode)',
    ].join('\n'),
  },
  subprocess: {
    code: 'import subprocess, sys\nprint(subprocess.run(["echo", "hi"], capture_output=True, text=True).stdout, end="")\nsubprocess.run([sys.executable, "-c", "print(7)"])\nprint(subprocess.call("exit 4", shell=True))',
  },
  'interleaved stdout and stderr': {
    code: 'import sys\nfor i in range(3):\n    print(i, flush=True)\n    print(-i, file=sys.stderr, flush=True)\nprint("end")',
  },
  'unicode and bytes': { code: 'import sys\nprint("héllo ✓")\nsys.stdout.buffer.write(b"raw\\n")' },
  'a warning': { code: 'import warnings\nwarnings.warn("careful")' },
  'files of the request': {
    code: 'import os\nprint(sorted(os.listdir(".")) [:-1], open("sub/a.txt").read())',
    request: { files: { 'sub/a.txt': Buffer.from('A').toString('base64') } },
  },
  'the memory limit': {
    code: 'x = bytearray(200 * 1024 * 1024)\nprint("allocated")',
    request: { memory_limit_MB: 128 },
  },
  'the timeout': {
    code: 'import time\nprint("started", flush=True)\nwhile True: time.sleep(0.05)',
    request: { run_timeout: 1 },
  },
};

/** What must match: everything but timing, with the random source path replaced by a stable name. */
function observable(execution: CodeExecution) {
  const { response } = execution;
  const normalise = (text: string | null | undefined) =>
    (text ?? '')
      .replace(/\/tmp\/tmp[\w]{8}\/tmp[\w]{8}\.py/g, '<source>')
      .replace(/\btmp[\w]{8}\.py\b/g, '<file>');
  return {
    status: response.status,
    runStatus: response.run_result?.status,
    returnCode: response.run_result?.return_code,
    stdout: normalise(response.run_result?.stdout),
    stderr: normalise(response.run_result?.stderr),
  };
}

describe('a forked run behaves as `python3 file.py`', () => {
  for (const [name, { code, request }] of Object.entries(PROGRAMS)) {
    it(name, async () => {
      const coldRun = await cold.executor().runCode({ code, language: 'python', ...request });
      const forkedRun = await forkedPython(forked.executor(), code, request);
      expect(observable(forkedRun)).toEqual(observable(coldRun));
      const besideCopy = await forkedPython(forkedBesideCopy.executor(), code, request);
      expect(observable(besideCopy)).toEqual(observable(coldRun));
    });
  }
});
