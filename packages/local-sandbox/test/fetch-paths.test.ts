import { describe, expect, it } from 'vitest';
import type { SandboxWorkdir } from '../src/sandbox';
import { resolveFetchPaths } from '../src/workdir-files';

const workdir = (fields: Pick<SandboxWorkdir, 'inside' | 'host' | 'tmp'>): SandboxWorkdir => ({
  ...fields,
  owner: undefined,
  release: () => undefined,
});

describe('resolveFetchPaths', () => {
  it('takes absolute paths as a bubblewrap sandbox sees them, relative to its /tmp', () => {
    const sandboxed = workdir({
      inside: '/tmp/tmpab12cd34',
      host: '/proc/self/fd/9',
      tmp: '/proc/self/fd/9/..',
    });
    const paths = [
      '/tmp/tmpab12cd34/out.txt',
      'out.txt',
      'sub/../x',
      '/tmp/b',
      '../b',
      '/tmp/.fusebox-shm/seg',
    ];
    expect(Object.fromEntries(resolveFetchPaths(sandboxed, paths))).toEqual({
      '/tmp/tmpab12cd34/out.txt': 'tmpab12cd34/out.txt',
      'out.txt': 'tmpab12cd34/out.txt',
      'sub/../x': 'tmpab12cd34/x',
      '/tmp/b': 'b',
      '../b': 'b',
      '/tmp/.fusebox-shm/seg': '.fusebox-shm/seg',
    });
  });

  it("keeps a sandbox without isolation to its own directory: the host's /tmp is not the sandbox's", () => {
    const host = '/tmp/fusebox-run-1-x';
    const plain = workdir({ inside: host, host, tmp: host });
    expect(Object.fromEntries(resolveFetchPaths(plain, [`${host}/a`, 'b/c']))).toEqual({
      [`${host}/a`]: 'a',
      'b/c': 'b/c',
    });
    expect(() => resolveFetchPaths(plain, ['/tmp/b'])).toThrow(/refused file path "\/tmp\/b": it is outside/);
    expect(() => resolveFetchPaths(plain, ['../x'])).toThrow(/outside the sandbox's writable places/);
  });

  it('refuses an empty path and one holding a NUL byte', () => {
    const sandboxed = workdir({ inside: '/tmp/w', host: '/proc/self/fd/9', tmp: '/proc/self/fd/9/..' });
    expect(() => resolveFetchPaths(sandboxed, [''])).toThrow(/empty or holds a NUL byte/);
    expect(() => resolveFetchPaths(sandboxed, ['a\0b'])).toThrow(/empty or holds a NUL byte/);
  });
});
