import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSeccompCacheDir } from '../src/seccomp-cache';
import { useExecutor } from './use-executor';

const { executor } = useExecutor({ memoryCapMB: 256, diskLimitMB: 64, maxProcesses: 64 });

/** The cached filters this host keeps, by name, with their contents. */
function cachedFilters(dir: string): Map<string, Buffer> {
  return new Map(
    readdirSync(dir)
      .filter((name) => name.endsWith('.bpf'))
      .map((name) => [name, readFileSync(join(dir, name))]),
  );
}

/**
 * The cached seccomp filter decides what every later sandbox may call, so the code it constrains must not be able
 * to see it, let alone plant one: a filter written from inside a sandbox would hold from the next restart on.
 */
describe('the seccomp filter cache, seen from sandboxed code', () => {
  it('is out of reach: not listed, not readable, not writable, and unchanged after the attempt', async () => {
    const dir = defaultSeccompCacheDir();
    // Control: starting the executor left this host's filter in the cache, where the probe will look for it.
    const before = cachedFilters(dir);
    expect(before.size).toBeGreaterThan(0);
    const [name] = [...before.keys()];
    const look = [
      `for path in '${dir}' '${join(dir, name as string)}' /var/lib/fusebox; do`,
      '  if [ -e "$path" ]; then echo "visible $path"; fi',
      'done',
      `cat '${join(dir, name as string)}' >/dev/null 2>&1 && echo read`,
    ];
    // Control: the same look from the host finds the cache and reads it, so an empty answer means out of reach.
    expect(execFileSync('bash', ['-c', look.join('\n')], { encoding: 'utf8' })).toContain('read');
    const probe = [
      ...look,
      `printf planted 2>/dev/null >'${join(dir, name as string)}' && echo wrote`,
      `mkdir -p '${dir}' 2>/dev/null && printf planted 2>/dev/null >'${join(dir, 'x.bpf')}' && echo created`,
      'echo done',
    ].join('\n');
    const { response } = await executor().runCode({ code: probe, language: 'bash', run_timeout: 10 });
    expect(response.run_result?.stdout).toBe('done\n');
    expect(cachedFilters(dir)).toEqual(before);
    expect(existsSync(join(dir, 'x.bpf'))).toBe(false);
  });
});
