import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { childrenOf } from '../src/process-tree';
import { forkedPython, sessionZygotePid, sleepers } from './zygote-helpers';
import { useExecutor } from './use-executor';

// Sessions forked from the session zygote (python-zygote.py with "sessions": true): each must be what a warm
// interpreter sandbox is, apart from every other session of the same zygote, which runs beside it.
const { executor } = useExecutor({ concurrency: 2, pythonZygote: true, maxSessions: 8, memoryCapMB: 256 });

/** The session zygote starts with the first session asked for, which goes warm: this waits until it forks. */
async function sessionZygoteUp(): Promise<void> {
  if (!executor().stats().sessionZygoteReady) {
    const { id } = await executor().sessions.create({});
    executor().sessions.close(id);
  }
  await vi.waitFor(() => expect(executor().stats().sessionZygoteReady).toBe(true), { timeout: 30_000 });
}

async function forkedSession(files: Record<string, string | null> = {}): Promise<string> {
  await sessionZygoteUp();
  const before = executor().stats().forkedSessions;
  const { id } = await executor().sessions.create({ files });
  expect(executor().stats().forkedSessions).toBe(before + 1);
  return id;
}

async function cell(id: string, code: string, timeoutMs?: number) {
  return executor().sessions.run(id, code, timeoutMs === undefined ? {} : { timeoutMs });
}

async function printed(id: string, code: string): Promise<string> {
  const result = await cell(id, code);
  expect(result.error).toEqual([]);
  return result.stdout.trim();
}

describe('sessions forked from the session zygote', () => {
  it('start no zygote until the first session: that one is warm, the next ones forked', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // time enough to start one, were it eager
    expect(sessionZygotePid()).toBeUndefined();
    expect(executor().stats().sessionZygoteReady).toBe(false);
    const { id: first } = await executor().sessions.create({});
    expect(executor().stats().forkedSessions).toBe(0);
    expect(await printed(first, 'print(6 * 7)')).toBe('42');
    executor().sessions.close(first);
    await vi.waitFor(() => expect(executor().stats().sessionZygoteReady).toBe(true), { timeout: 30_000 });
    expect(sessionZygotePid()).toBeDefined();
    const second = await forkedSession();
    expect(await printed(second, 'print(6 * 7)')).toBe('42');
    executor().sessions.close(second);
  });

  it('start with the request’s files, keep state across cells, run IPython, and restart fresh', async () => {
    const id = await forkedSession({ 'data/input.txt': Buffer.from('forty-two').toString('base64') });
    expect(await printed(id, 'x = open("data/input.txt").read()\nprint(x)')).toBe('forty-two');
    expect((await cell(id, 'x.upper()')).display).toEqual([{ 'text/plain': "'FORTY-TWO'" }]);
    expect(await printed(id, '!echo from-a-shell')).toBe('from-a-shell');
    const failed = await cell(id, '1 / 0');
    expect(failed.error[0]?.ename).toBe('ZeroDivisionError');
    await executor().sessions.restart(id);
    expect((await cell(id, 'x')).error[0]?.ename).toBe('NameError');
    expect(await printed(id, 'print(open("data/input.txt").read())')).toBe('forty-two');
    executor().sessions.close(id);
  });

  it('get their own namespaces, uid 65534, no capabilities, no_new_privs and the seccomp filter', async () => {
    const id = await forkedSession();
    const status = await printed(
      id,
      'import os\nprint(os.getpid(), os.getuid(), [l.split()[1] for l in open("/proc/self/status") if l.split()[0] in ("CapEff:", "NoNewPrivs:", "Seccomp:")])',
    );
    const [pid, uid, flags] = [status.split(' ')[0], status.split(' ')[1], status.slice(status.indexOf('['))];
    expect(Number(pid)).toBeLessThan(10); // its own pid namespace: the init is 1
    expect(uid).toBe('65534');
    expect(flags).toBe("['0000000000000000', '1', '2']");
    // Only its own processes are visible.
    expect(
      await printed(id, 'import os\nprint(len([p for p in os.listdir("/proc") if p.isdigit()]))'),
    ).toMatch(/^[1-3]$/);
    executor().sessions.close(id);
  });

  it('never see what another session (running beside it, or earlier) left: files, modules, environment, processes, sockets, randomness', async () => {
    const first = await forkedSession();
    await printed(
      first,
      [
        'import os, json, socket, subprocess, random',
        'open("/tmp/left.txt", "w").write("x"); open("/dev/shm/left", "w").write("x"); open("left-in-cwd", "w").write("x")',
        'json.left = True; os.environ["LEFT"] = "1"',
        'sleeper = subprocess.Popen(["sleep", "300"])',
        'server = socket.socket(); server.bind(("127.0.0.1", 8123)); server.listen()',
        'abstract = socket.socket(socket.AF_UNIX); abstract.bind("\\0fusebox-left"); abstract.listen()',
        'print(random.random())',
      ].join('\n'),
    );
    const probe = [
      'import os, json, socket, random',
      'seen = []',
      'seen += [p for p in ("/tmp/left.txt", "/dev/shm/left", "left-in-cwd") if os.path.exists(p)]',
      'seen += ["json.left"] if hasattr(json, "left") else []',
      'seen += ["LEFT"] if "LEFT" in os.environ else []',
      'seen += [p for p in os.listdir("/proc") if p.isdigit() and "sleep" in open(f"/proc/{p}/cmdline").read()]',
      'for family, address in ((socket.AF_INET, ("127.0.0.1", 8123)), (socket.AF_UNIX, "\\0fusebox-left")):',
      '    s = socket.socket(family)',
      '    try:',
      '        s.connect(address); seen.append(str(address))',
      '    except OSError:',
      '        pass',
      'print(seen)',
    ].join('\n');
    const beside = await forkedSession();
    expect(await printed(beside, probe)).toBe('[]');
    // Its own loopback works (a network namespace of its own, with loopback up), as in a warm sandbox.
    expect(
      await printed(
        beside,
        'import socket\ns = socket.socket(); s.bind(("127.0.0.1", 8123)); s.listen()\nc = socket.create_connection(("127.0.0.1", 8123)); print("own loopback")',
      ),
    ).toBe('own loopback');
    // Each source on its own: os.urandom always differs, Python's random only if reseeded after the fork.
    for (const draw of ['import random\nprint(random.random())', 'import os\nprint(os.urandom(8).hex())']) {
      const draws = await Promise.all([first, beside].map((id) => printed(id, draw)));
      expect(new Set(draws).size).toBe(2);
    }
    // Nor does a run forked beside it reach the session's listening socket.
    const run = await forkedPython(
      executor(),
      'import socket\ntry:\n    socket.create_connection(("127.0.0.1", 8123), timeout=1); print("reached")\nexcept OSError:\n    print("refused")',
    );
    expect(run.response.run_result?.stdout).toBe('refused\n');
    executor().sessions.close(first);
    const later = await forkedSession();
    expect(await printed(later, probe)).toBe('[]');
    executor().sessions.close(beside);
    executor().sessions.close(later);
  });

  it.each([
    {
      end: 'at a cell timeout, all their processes with them',
      code: 'import subprocess, time\nsubprocess.Popen(["sleep", "300"])\ntime.sleep(60)',
      timeoutMs: 1000,
      status: 'timeout',
    },
    {
      end: 'past the memory cap of their own cgroup',
      code: 'blocks = []\nwhile True:\n    blocks.append(bytearray(16 << 20))',
      timeoutMs: 30_000,
      status: 'died',
    },
  ])('are stopped alone $end; other sessions keep their state', async ({ code, timeoutMs, status }) => {
    const kept = await forkedSession();
    await printed(kept, 'kept = 7');
    const stopped = await forkedSession();
    expect((await cell(stopped, code, timeoutMs)).status).toBe(status);
    expect(executor().sessions.info(stopped).alive).toBe(false);
    expect(await printed(kept, 'print(kept)')).toBe('7');
    await vi.waitFor(() => expect(sleepers(300)).toEqual([]), { timeout: 10_000 });
    executor().sessions.close(stopped);
    executor().sessions.close(kept);
  });

  it('answer /run_jupyter without fetch_files (forked, files in place); with fetch_files it takes a warm sandbox', async () => {
    await sessionZygoteUp();
    const cells = ['x = open("in.txt").read()', 'print(x.upper())', 'open("/tmp/out.txt", "w").write(x)\nx'];
    const files = { 'in.txt': Buffer.from('jupyter').toString('base64') };
    const before = executor().stats().forkedSessions;
    const forked = await executor().runJupyter({ cells, files });
    expect(executor().stats().forkedSessions).toBe(before + 1);
    const warm = await executor().runJupyter({ cells, files, fetch_files: ['/tmp/out.txt'] });
    expect(executor().stats().forkedSessions).toBe(before + 1);
    for (const { response } of [forked, warm]) {
      expect(response.status).toBe('Success');
      expect(response.cells.map((cell) => [cell.stdout, cell.display])).toEqual([
        ['', []],
        ['JUPYTER\n', []],
        ['', [{ 'text/plain': "'jupyter'" }]],
      ]);
    }
    expect(warm.response.files).toEqual({ '/tmp/out.txt': Buffer.from('jupyter').toString('base64') });
  });

  // The residual of forked sessions (README, "Forked sessions"): they share their zygote's host uid, so the
  // kernel's per-uid counts are shared too. Shown here for inotify instances (128 per uid by default): while one
  // session holds them all, another cannot make one; the hog's session ending gives them back.
  it('share per-uid kernel counts with the other sessions of their zygote (a residual), until the holder ends', async () => {
    const inotify = 'import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n';
    const hog = await forkedSession();
    const other = await forkedSession();
    const [held, errno] = (
      await printed(
        hog,
        `${inotify}held = 0\nwhile libc.inotify_init() >= 0:\n    held += 1\nprint(held, ctypes.get_errno())`,
      )
    )
      .split(' ')
      .map(Number);
    expect(errno).toBe(24); // EMFILE
    expect(held).toBeLessThanOrEqual(Number(readFileSync('/proc/sys/fs/inotify/max_user_instances', 'utf8')));
    const makeOne = `${inotify}fd = libc.inotify_init()\nprint(fd >= 0 or ctypes.get_errno())\nif fd >= 0:\n    os.close(fd)`;
    expect(await printed(other, makeOne)).toBe('24');
    executor().sessions.close(hog);
    await vi.waitFor(async () => expect(await printed(other, makeOne)).toBe('True'), { timeout: 10_000 });
    executor().sessions.close(other);
  });

  it('still start when the session zygote is killed: the ones it forked end, new ones start (warm, then forked again)', async () => {
    const doomed = await forkedSession();
    const zygote = sessionZygotePid();
    expect(zygote).toBeDefined();
    // Killed idle, once it has forked the next session ahead too (its children: that one's init and doomed's).
    await vi.waitFor(() => expect(childrenOf(zygote as number)).toHaveLength(2), { timeout: 10_000 });
    process.kill(zygote as number, 'SIGKILL');
    // Once the host has seen it go (a session asked for in the moment before could still be handed the one
    // forked ahead, dead with it).
    await vi.waitFor(() => expect(executor().sessions.info(doomed).alive).toBe(false));
    const fresh = await executor().sessions.create();
    expect(await printed(fresh.id, 'print("alive")')).toBe('alive');
    const forkedAgain = await forkedSession();
    expect(await printed(forkedAgain, 'print("forked again")')).toBe('forked again');
    for (const id of [doomed, fresh.id, forkedAgain]) executor().sessions.close(id);
  });
});
