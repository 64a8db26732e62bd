import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./fixtures/unprivileged-probe.ts', import.meta.url));
const NOBODY = '65534';

describe('an executor run by an unprivileged user', () => {
  // As a non-root user the whole suite already runs this way; as root, this is the one place it is checked.
  it.runIf(process.getuid?.() === 0)(
    'isolates code the same way: unprivileged bubblewrap, seccomp, masked /proc, host-side timeouts',
    async () => {
      const output = await new Promise<string>((resolve, reject) => {
        execFile(
          'setpriv',
          [
            `--reuid=${NOBODY}`,
            `--regid=${NOBODY}`,
            '--clear-groups',
            '--',
            process.execPath,
            '--import',
            'tsx',
            PROBE,
          ],
          { env: { PATH: process.env.PATH, HOME: '/tmp' }, timeout: 60_000 },
          (error, stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
        );
      });
      const seen = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
      expect(seen.uid).toBe(Number(NOBODY));
      // Not root: no cgroups to create, and the executor says what that leaves uncontained.
      expect(seen.warnings).toEqual([expect.stringMatching(/per-sandbox cgroups are unavailable/) as string]);
      expect(seen.probe).toEqual({
        sysctl: expect.stringMatching(/^(EROFS|EACCES)$/) as string,
        driver_mem: 'EACCES',
        unshare_user: 'EPERM',
        own_file: 'ok',
      });
      expect(seen.timeout).toBe('TimeLimitExceeded');
    },
  );
});
