import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./fixtures/unprivileged-probe.ts', import.meta.url));
const NOBODY = '65534';

/** Runs the probe under `prefix` (a command that changes who runs it) and parses what it printed. */
function runProbe(prefix: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const [command, ...args] = prefix;
    execFile(
      command as string,
      [...args, process.execPath, '--conditions=@fusebox/source', '--import', 'tsx', PROBE],
      { env: { PATH: process.env.PATH, HOME: '/tmp' }, timeout: 60_000 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`${error.message}\n${stderr}`))
          : resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>),
    );
  });
}

const CONTAINED = {
  sysctl: expect.stringMatching(/^(EROFS|EACCES)$/) as string,
  driver_mem: 'EACCES',
  unshare_user: 'EPERM',
  own_file: 'ok',
};

describe('an executor run by an unprivileged user', () => {
  // As a non-root user the whole suite already runs this way; as root, this is the one place it is checked.
  it.runIf(process.getuid?.() === 0)(
    'isolates code the same way: unprivileged bubblewrap, seccomp, masked /proc, host-side timeouts',
    async () => {
      const seen = await runProbe([
        'setpriv',
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        '--clear-groups',
        '--',
      ]);
      expect(seen.uid).toBe(Number(NOBODY));
      // Not root: no cgroups to create, and the executor says what that leaves uncontained.
      expect(seen.warnings).toEqual([expect.stringMatching(/per-sandbox cgroups are unavailable/) as string]);
      expect(seen.probe).toEqual(CONTAINED);
      expect(seen.timeout).toBe('TimeLimitExceeded');
      // No cgroups, yet each sandbox stops near its 64 processes (the driver, Python and its children count),
      // and the two apart: the cap is per sandbox, not per uid.
      for (const forked of seen.forked as number[]) expect(forked).toBeGreaterThanOrEqual(55);
      for (const forked of seen.forked as number[]) expect(forked).toBeLessThan(64);
    },
  );

  it.runIf(process.getuid?.() === 0)(
    'as root of a user namespace that does not map the sandbox ids (a container), runs code as its own uid and says so',
    async () => {
      // Only uid 0 exists in this namespace, as in a container whose user namespace maps a small range.
      const seen = await runProbe([
        'bwrap',
        '--dev-bind',
        '/',
        '/',
        '--unshare-user',
        '--uid',
        '0',
        '--gid',
        '0',
        '--',
      ]);
      expect(seen.uid).toBe(0);
      expect(seen.warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/sandbox ids 1879048192-\d+ are not mapped/) as string,
        ]),
      );
      expect(seen.probe).toEqual(CONTAINED);
      expect(seen.timeout).toBe('TimeLimitExceeded');
    },
  );
});
