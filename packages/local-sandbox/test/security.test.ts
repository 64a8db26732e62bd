import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useExecutor } from './use-executor';

/** This checkout, which sandboxed code must not be able to read. */
const CHECKOUT_FILE = fileURLToPath(new URL('../package.json', import.meta.url));

// A secret in the environment of the process that runs the executor, as DATABASE_URL or a token would be.
process.env.FUSEBOX_SECURITY_TEST_SECRET = 'host-secret';

const { executor } = useExecutor({
  memoryCapMB: 256,
  diskLimitMB: 64,
  maxProcesses: 64,
  outputLimitBytes: 1024 * 1024,
});

const run = (language: 'python' | 'bash', code: string, extra: Record<string, unknown> = {}) =>
  executor().runCode({ code, language, run_timeout: 10, ...extra });

/** A normal result: the sandbox reported on the user's code; it did not fail itself. */
function expectContained(response: { status: string; run_result: unknown }) {
  expect(response.status).not.toBe('SandboxError');
  expect(response.run_result).not.toBeNull();
}

function processesMatching(pattern: string): string[] {
  try {
    return execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('sandboxed code', () => {
  let listener: ReturnType<typeof createServer>;
  let port: number;
  beforeAll(async () => {
    listener = createServer((socket) => socket.end('secret\n'));
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => listener.close());

  afterEach(async () => {
    // Whatever the previous test did, the executor still runs ordinary code.
    const { response } = await run('python', 'print("still fine")');
    expect(response.run_result?.stdout).toBe('still fine\n');
  });

  it('cannot open TCP connections to host services on 127.0.0.1, nor resolve names', async () => {
    const code = `
import socket
for port in (${port}, 5432):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).recv(100)
        print(port, "connected")
    except OSError as error:
        print(port, "refused", type(error).__name__)
try:
    socket.getaddrinfo("example.com", 80)
    print("dns resolved")
except OSError as error:
    print("dns failed", type(error).__name__)
try:
    socket.create_connection(("8.8.8.8", 53), timeout=2)
    print("internet reachable")
except OSError as error:
    print("internet unreachable", type(error).__name__)
`;
    const { response } = await run('python', code);
    expectContained(response);
    const stdout = response.run_result?.stdout ?? '';
    expect(stdout).toContain(`${port} refused`);
    expect(stdout).toContain('5432 refused');
    expect(stdout).toContain('dns failed');
    expect(stdout).toContain('internet unreachable');
    expect(stdout).not.toContain('connected');
  });

  it('cannot read /root, /etc/shadow or this checkout', async () => {
    const code = `
import os
for path in ("/root", "/etc/shadow", ${JSON.stringify(CHECKOUT_FILE)}, "/work"):
    try:
        print(path, "readable", os.listdir(path) if os.path.isdir(path) else open(path).read()[:20])
    except OSError as error:
        print(path, "denied", type(error).__name__)
`;
    const { response } = await run('python', code);
    expectContained(response);
    const stdout = response.run_result?.stdout ?? '';
    expect(stdout).not.toContain('readable');
    expect(stdout.match(/denied/g)).toHaveLength(4);
  });

  it('runs as uid 65534 with a minimal environment, read-only system directories and its own host name and IPC', async () => {
    const hostIpc = execFileSync('readlink', ['/proc/self/ns/ipc'], { encoding: 'utf8' }).trim();
    const code = `
import json, os, socket
writes = {}
for path in ("/usr/fusebox-probe", "/etc/fusebox-probe", "/fusebox-probe"):
    try:
        open(path, "w").write("x")
        writes[path] = "written"
    except OSError as error:
        writes[path] = type(error).__name__
print(json.dumps({"uid": os.getuid(), "gid": os.getgid(), "env": dict(os.environ), "writes": writes,
                  "hostname": socket.gethostname(), "ipc": os.readlink("/proc/self/ns/ipc")}))
`;
    const { response } = await run('python', code);
    expectContained(response);
    const seen = JSON.parse(response.run_result?.stdout ?? '') as {
      uid: number;
      gid: number;
      env: Record<string, string>;
      writes: Record<string, string>;
      hostname: string;
      ipc: string;
    };
    expect(seen.uid).toBe(65534);
    expect(seen.gid).toBe(65534);
    // Nothing of the host's environment (its secrets, DATABASE_URL, tokens) reaches the code.
    expect(Object.values(seen.env)).not.toContain('host-secret');
    expect(Object.keys(seen.env).sort()).toEqual(expect.arrayContaining(['HOME', 'PATH']));
    expect(Object.keys(seen.env).length).toBeLessThan(10);
    expect(Object.values(seen.writes).every((outcome) => outcome !== 'written')).toBe(true);
    expect(seen.hostname).not.toBe(execFileSync('hostname', { encoding: 'utf8' }).trim());
    expect(seen.ipc).not.toBe(hostIpc);
  });

  it('cannot signal processes outside the sandbox', async () => {
    const victim = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const { response } = await run(
        'python',
        `import os, signal\ntry:\n    os.kill(${victim.pid}, signal.SIGKILL)\n    print("sent")\nexcept OSError as error:\n    print(type(error).__name__)\n` +
          `try:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError as error:\n    print(type(error).__name__)`,
      );
      expectContained(response);
      expect(response.run_result?.stdout).toMatch(/^ProcessLookupError\n/);
      expect(victim.exitCode).toBeNull();
      expect(victim.signalCode).toBeNull();
    } finally {
      victim.kill();
    }
  });

  it('caps the processes a sandbox may have, so a fork bomb is contained', async () => {
    const counted = await run(
      'python',
      'import os, time\nchildren = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n' +
        '        children += 1\nexcept BlockingIOError:\n    print("refused after", children)',
    );
    expectContained(counted.response);
    // The sandbox may hold 64 processes in all, bubblewrap's and the driver's included.
    const children = Number(/^refused after (\d+)\n$/.exec(counted.response.run_result?.stdout ?? '')?.[1]);
    expect(children).toBeGreaterThan(50);
    expect(children).toBeLessThan(64);

    // The classic bomb: it hits the limit (bash says so), the run ends at its timeout or when the shell gives
    // up, and the next run (afterEach) finds the executor healthy.
    const bomb = await run('bash', 'bomb() { bomb | bomb & }\nbomb\nsleep 2', { run_timeout: 5 });
    expectContained(bomb.response);
    expect(bomb.response.run_result?.stderr).toMatch(/fork: (retry: )?Resource temporarily unavailable/);
  });

  it('contains a memory bomb without a memory_limit_MB to the sandbox memory cap', async () => {
    const { response } = await run(
      'python',
      'blocks = []\nwhile True:\n    blocks.append(bytearray(16 * 1024 * 1024))',
    );
    expectContained(response);
    expect(response.status).toBe('Failed');
    // The kernel's OOM killer ends the process inside its cgroup: the shell reports 128 + SIGKILL.
    expect(response.run_result?.return_code).toBe(137);
  });

  it('contains a program filling the disk to the sandbox tmpfs', async () => {
    const code = `
import os
try:
    with open("fill.bin", "wb") as f:
        while True:
            f.write(b"x" * 1024 * 1024)
except OSError as error:
    print("stopped", error.strerror)
print(os.path.getsize("fill.bin") <= 64 * 1024 * 1024)
`;
    const { response } = await run('python', code);
    expectContained(response);
    expect(response.run_result?.stdout).toMatch(/^stopped (No space left on device|File too large)\nTrue\n$/);
  });

  it('survives a 100 MB output flood, keeping the first MiB and saying how much was dropped', async () => {
    const { response, outputTruncated } = await run(
      'python',
      'import sys\nchunk = "y" * 1_000_000\nfor _ in range(100):\n    sys.stdout.write(chunk)',
      { run_timeout: 30 },
    );
    expectContained(response);
    expect(response.status).toBe('Success');
    expect(outputTruncated).toBe(true);
    const stdout = response.run_result?.stdout ?? '';
    expect(stdout.length).toBeLessThan(1024 * 1024 + 200);
    expect(stdout).toContain(`${100_000_000 - 1024 * 1024} of 100000000 bytes dropped`);
  });

  it('kills background processes left running when the main one exits', async () => {
    const { response } = await run(
      'bash',
      'sleep 98761 &\nnohup sleep 98762 >/dev/null 2>&1 &\nsetsid sleep 98763 &\n(trap "" HUP TERM; sleep 98764) &\necho started',
    );
    expectContained(response);
    expect(response).toMatchObject({ status: 'Success', run_result: { stdout: 'started\n' } });
    expect(processesMatching('sleep 9876[1-4]')).toEqual([]);
  });

  it('cannot kill the driver that reports its status: kill -9 -1 leaves the run and its result intact', async () => {
    const { response } = await run('bash', 'echo before\nkill -9 -1\necho after\nexit 3');
    expectContained(response);
    // The driver is the sandbox's pid 1, which nothing inside its pid namespace can signal.
    expect(response).toMatchObject({
      status: 'Failed',
      run_result: { return_code: 3, stdout: 'before\nafter\n' },
    });
  });

  it('never follows a symlink in fetch_files, even one the code planted', async () => {
    const code =
      'import os\nos.symlink("/etc/passwd", "leak")\nos.symlink("/", "root")\nos.mkdir("d")\nos.symlink("/etc", "d/etc")';
    const { response } = await run('python', code, {
      fetch_files: ['leak', 'root/etc/passwd', 'd/etc/passwd', '/tmp/leak'],
    });
    expectContained(response);
    expect(response.status).toBe('Success');
    expect(response.files).toEqual({});
    // Paths outside the sandbox's /tmp are refused before anything runs, never resolved against the host.
    for (const outside of ['/etc/passwd', '../../etc/passwd']) {
      const refused = await run('python', code, { fetch_files: [outside] });
      expect(refused.response).toMatchObject({ status: 'SandboxError', run_result: null, files: {} });
    }
  });
});
