import { describe, expect, it } from 'vitest';
import { useProbes } from './sandbox-probe';

// RLIMIT_NOFILE of sandboxed code (FUSEBOX_EXECUTOR_MAX_OPEN_FILES): the spawner lowers its own before it starts
// any sandbox, so every door (a forked Python run, the step driver, an interpreter) inherits it. Without it a
// sandbox got the API's limit (20000 on these machines), and code could hold that many sockets or files per
// process.

const MAX_OPEN_FILES = 256;
const probes = useProbes({ FUSEBOX_EXECUTOR_MAX_OPEN_FILES: String(MAX_OPEN_FILES) });

const OPEN_FILES = `
RLIMIT_NOFILE = resource.RLIMIT_NOFILE
soft, hard = resource.getrlimit(RLIMIT_NOFILE)
result["limit"] = [soft, hard]
result["raise_hard"] = attempt(lambda: resource.setrlimit(RLIMIT_NOFILE, (hard + 1, hard + 1)))
result["unlimited"] = attempt(lambda: resource.setrlimit(RLIMIT_NOFILE, (resource.RLIM_INFINITY,) * 2))
for target in (1, os.getppid()):
    result["prlimit_%d" % target] = attempt(lambda: resource.prlimit(target, RLIMIT_NOFILE, (hard + 100,) * 2))
result["after"] = list(resource.getrlimit(RLIMIT_NOFILE))
# Control: files open up to the limit, then the kernel says no.
held = []
try:
    while len(held) < 100_000:
        held.extend(socket.socketpair())
except OSError as error:
    result["stopped"] = name(error)
result["held"] = len(held)
for s in held:
    s.close()
`;

describe('open files of sandboxed code', () => {
  for (const route of ['run_code', 'run_jupyter', 'session'] as const) {
    it(`stop at FUSEBOX_EXECUTOR_MAX_OPEN_FILES, which the code cannot raise (${route})`, async () => {
      const result = await probes.python(route, OPEN_FILES, 30);
      expect(result.limit).toEqual([MAX_OPEN_FILES, MAX_OPEN_FILES]);
      expect(result.raise_hard).toBe('ValueError');
      expect(result.unlimited).toBe('ValueError');
      expect(result.prlimit_1).toBe('EPERM');
      expect(Object.entries(result).filter(([k, v]) => k.startsWith('prlimit_') && v === 'ok')).toEqual([]);
      expect(result.after).toEqual([MAX_OPEN_FILES, MAX_OPEN_FILES]);
      expect(result.stopped).toBe('EMFILE');
      // Every descriptor the process has counts: stdio and the interpreter's own take a few of the limit.
      expect(result.held as number).toBeGreaterThan(MAX_OPEN_FILES - 40);
      expect(result.held as number).toBeLessThan(MAX_OPEN_FILES);
    }, 60_000);
  }

  it('stop there for a program the step driver runs, which cannot raise it either', async () => {
    const answer = await probes.run(
      'bash',
      'ulimit -Sn; ulimit -Hn; ulimit -n 100000 2>/dev/null && echo raised || echo refused',
    );
    expect(answer.status).toBe('Success');
    expect(answer.run_result.stdout).toBe(`${MAX_OPEN_FILES}\n${MAX_OPEN_FILES}\nrefused\n`);
  }, 60_000);
});
