import { describe, expect, it } from 'vitest';
import { useExecutor } from './use-executor';

const { executor } = useExecutor({ outputLimitBytes: 64 * 1024 });

const python = (code: string, extra: Record<string, unknown> = {}) =>
  executor().runCode({ code, language: 'python', ...extra });

describe('runCode', () => {
  it('writes stdin once and closes it', async () => {
    const { response } = await python('import sys\nprint(repr(sys.stdin.read()))', { stdin: 'a\nb\n' });
    expect(response.run_result?.stdout).toBe("'a\\nb\\n'\n");
    const closed = await python('import sys\nprint(repr(sys.stdin.read()))');
    expect(closed.response.run_result?.stdout).toBe("''\n");
  });

  it('gives the run real pipes, so /dev/stdout, /dev/stderr and /dev/stdin work as they do on SandboxFusion', async () => {
    const { response } = await executor().runCode({
      code: 'echo out > /dev/stdout\necho err > /dev/stderr\ncat /dev/stdin',
      language: 'bash',
      stdin: 'in\n',
    });
    expect(response).toMatchObject({
      status: 'Success',
      run_result: { stdout: 'out\nin\n', stderr: 'err\n' },
    });
  });

  it('kills a run at its wall-clock timeout, keeps what it printed, and reports a null return code', async () => {
    const { response, runMs } = await python('print("started", flush=True)\nimport time\ntime.sleep(30)', {
      run_timeout: 0.5,
    });
    expect(response.status).toBe('Failed');
    expect(response.run_result).toMatchObject({
      status: 'TimeLimitExceeded',
      return_code: null,
      stdout: 'started\n',
    });
    expect(response.run_result?.execution_time).toBeGreaterThanOrEqual(0.5);
    expect(runMs).toBeLessThan(30_000);
  });

  it('applies memory_limit_MB as an address-space limit: Python raises MemoryError', async () => {
    const { response } = await python('x = bytearray(400 * 1024 * 1024)\nprint("allocated")', {
      memory_limit_MB: 128,
    });
    expect(response.status).toBe('Failed');
    expect(response.run_result?.return_code).toBe(1);
    expect(response.run_result?.stderr).toContain('MemoryError');
    const roomy = await python('x = bytearray(64 * 1024 * 1024)\nprint("allocated")', {
      memory_limit_MB: 1024,
    });
    expect(roomy.response.run_result?.stdout).toBe('allocated\n');
  });

  it('caps each stream while the process runs and says so; the process is not blocked', async () => {
    const { response, outputTruncated } = await python(
      'import sys\nsys.stdout.write("x" * 1_000_000)\nsys.stderr.write("e" * 10)\nprint("\\ndone", file=sys.stderr)',
    );
    expect(response.status).toBe('Success');
    expect(outputTruncated).toBe(true);
    const stdout = response.run_result?.stdout ?? '';
    expect(stdout.startsWith('x'.repeat(64 * 1024))).toBe(true);
    expect(stdout).toContain(`[Fusebox: output truncated: ${1_000_000 - 64 * 1024} of 1000000 bytes dropped`);
    expect(response.run_result?.stderr).toBe('eeeeeeeeee\ndone\n');
  });

  it('reports output that is not UTF-8 as SandboxFusion does', async () => {
    const { response } = await python('import sys\nsys.stdout.buffer.write(b"ok \\xff")');
    expect(response.run_result?.stdout).toBe(
      "[DecodeError] 'utf-8' codec can't decode byte 0xff in position 3: invalid start byte",
    );
  });

  it('writes files (nested, binary, null skipped) and returns fetch_files, leaving out missing ones', async () => {
    const { response } = await python(
      'import os\nprint(open("data/sub/in.txt").read(), end="")\nprint(open("top.bin", "rb").read())\n' +
        'print(os.path.exists("skipped.txt"))\nopen("out/result.txt", "w").write("result")',
      {
        files: {
          'data/sub/in.txt': Buffer.from('nested\n').toString('base64'),
          'top.bin': 'AAH/',
          'skipped.txt': null,
          'out/.keep': '',
        },
        fetch_files: ['out/result.txt', 'missing.txt', 'top.bin'],
      },
    );
    expect(response.run_result?.stdout).toBe("nested\nb'\\x00\\x01\\xff'\nFalse\n");
    expect(response.files).toEqual({
      'out/result.txt': Buffer.from('result').toString('base64'),
      'top.bin': 'AAH/',
    });
  });

  it('refuses files whose path is absolute or climbs out of the working directory, writing nothing', async () => {
    for (const path of ['/etc/evil', '../evil', 'a/../../evil']) {
      const { response } = await python('print("ran")', { files: { [path]: 'eA==' } });
      expect(response.status).toBe('SandboxError');
      expect(response.message).toContain(`refused file path ${JSON.stringify(path)}`);
      expect(response.run_result).toBeNull();
    }
  });

  it('fetches absolute paths anywhere in the sandbox /tmp, the working directory included, as SandboxFusion does', async () => {
    const { response } = await python(
      'import os\nos.makedirs("/tmp/deep/er")\nopen("/tmp/b", "w").write("bee")\n' +
        'open("/tmp/deep/er/c", "w").write("sea")\nopen("here.txt", "w").write("cwd")\nprint(os.getcwd())\n' +
        // Hostile control: a link the code plants in /tmp is never followed out.
        'os.symlink("/etc/passwd", "/tmp/leak")\nos.symlink("/etc", "/tmp/etc")',
      {
        fetch_files: [
          '/tmp/b',
          '/tmp/deep/er/c',
          '../b',
          '/tmp/./deep/../b',
          'here.txt',
          '/tmp/missing',
          '/tmp/leak',
          '/tmp/etc/passwd',
        ],
      },
    );
    expect(response.status).toBe('Success');
    const cwd = response.run_result?.stdout?.trim() ?? '';
    expect(cwd).toMatch(/^\/tmp\/\w+$/);
    const b = Buffer.from('bee').toString('base64');
    expect(response.files).toEqual({
      '/tmp/b': b,
      '/tmp/deep/er/c': Buffer.from('sea').toString('base64'),
      '../b': b,
      '/tmp/./deep/../b': b,
      'here.txt': Buffer.from('cwd').toString('base64'),
    });
  });

  it('refuses fetch_files outside the sandbox /tmp with a SandboxError naming the path, before running', async () => {
    for (const path of ['/mnt/b', '/etc/passwd', '../../etc/passwd', '/tmp', '/', '/tmp/../etc/passwd']) {
      const { response } = await python('print("ran")', { fetch_files: ['ok.txt', path] });
      expect(response.status).toBe('SandboxError');
      expect(response.message).toContain(`refused file path ${JSON.stringify(path)}`);
      expect(response.message).toContain("outside the sandbox's writable places");
      expect(response.run_result).toBeNull();
    }
  });

  it('kills the run when the caller aborts, and rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('caller went away');
    const started = performance.now();
    setTimeout(() => controller.abort(reason), 300);
    await expect(
      executor().runCode(
        { code: 'import time\ntime.sleep(30)', language: 'python', run_timeout: 60 },
        { signal: controller.signal },
      ),
    ).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
