import { describe, expect, it } from 'vitest';
import { useProbes } from './sandbox-probe';

// Hostile review of fetch_files by absolute path (anything under the sandbox's /tmp, as SandboxFusion accepts):
// the run's code prepares links, FIFOs and huge files, then asks for them; only its own regular files come back.

const probes = useProbes();
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('fetch_files against what the run left under /tmp', () => {
  it('returns the run’s own files and nothing a link, a FIFO, a sparse giant or /proc leads to', async () => {
    const code = `
import os
open("/tmp/own.txt", "w").write("mine")
os.symlink("/etc/passwd", "/tmp/link")
os.symlink("/", "/tmp/root")
os.symlink("/proc/self/root/etc", "/tmp/procroot")
os.mkfifo("/tmp/fifo")
with open("/tmp/sparse", "wb") as f:
    f.truncate(60 << 20)
print("ready")
`;
    const paths = [
      '/tmp/own.txt',
      '/tmp/link',
      '/tmp/root/etc/passwd',
      '/tmp/procroot/passwd',
      '/tmp/fifo',
      '/tmp/sparse',
      '/tmp/./own.txt',
      '/tmp/x/../own.txt',
    ];
    const answer = await probes.run('python', code, { fetch_files: paths });
    expect(answer.run_result.stdout).toBe('ready\n');
    // Detection: the fetch works, by any spelling of the run's own file's path.
    expect(answer.files['/tmp/own.txt']).toBe(base64('mine'));
    expect(answer.files['/tmp/./own.txt']).toBe(base64('mine'));
    expect(Object.keys(answer.files).sort()).toEqual(['/tmp/./own.txt', '/tmp/own.txt', '/tmp/x/../own.txt']);
  });

  it('refuses paths outside /tmp as SandboxFusion does (a SandboxError naming the path), before anything runs', async () => {
    for (const path of [
      '/etc/passwd',
      '/proc/self/root/etc/passwd',
      '/tmp/../etc/passwd',
      '/proc/1/fd/0',
      '/dev/shm/x',
    ]) {
      const answer = await probes.server().post('/run_code', {
        code: 'print(1)',
        language: 'python',
        fetch_files: [path],
      });
      expect(answer.status, path).toBe(200);
      const body = JSON.parse(answer.text) as { status: string; message: string; run_result: unknown };
      expect(body.status, path).toBe('SandboxError');
      expect(body.message, path).toContain(`refused file path ${JSON.stringify(path)}`);
      // Nothing ran: no run result to read anything from.
      expect(body.run_result, path).toBeNull();
    }
  });
});
