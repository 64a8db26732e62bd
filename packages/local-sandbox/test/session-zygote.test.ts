import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { childrenOf } from '../src/process-tree';
import { descendsFrom, forkedPython, sessionZygotePid } from './zygote-helpers';
import { useExecutor } from './use-executor';

// Sessions forked from the session zygote (python-zygote.py with "sessions": true): each must be what a warm
// interpreter sandbox is, apart from every other session of the same zygote, which runs beside it.
const { executor } = useExecutor({ concurrency: 2, pythonZygote: true, maxSessions: 8, memoryCapMB: 256 });

async function forkedSession(files: Record<string, string | null> = {}): Promise<string> {
  await vi.waitFor(() => expect(executor().stats().sessionZygoteReady).toBe(true), { timeout: 30_000 });
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

  it('are stopped alone at a cell timeout, all their processes with them; other sessions keep their state', async () => {
    const kept = await forkedSession();
    await printed(kept, 'kept = 7');
    const stuck = await forkedSession();
    const result = await cell(
      stuck,
      'import subprocess, time\nsubprocess.Popen(["sleep", "300"])\ntime.sleep(60)',
      1000,
    );
    expect(result.status).toBe('timeout');
    expect(executor().sessions.info(stuck).alive).toBe(false);
    expect(await printed(kept, 'print(kept)')).toBe('7');
    await vi.waitFor(() => expect(sleepers()).toEqual([]), { timeout: 10_000 });
    executor().sessions.close(stuck);
    executor().sessions.close(kept);
  });

  it('are bounded by a cgroup of their own: a cell that allocates past the memory cap kills its session only', async () => {
    const kept = await forkedSession();
    await printed(kept, 'kept = 8');
    const greedy = await forkedSession();
    const result = await cell(
      greedy,
      'blocks = []\nwhile True:\n    blocks.append(bytearray(16 << 20))',
      30_000,
    );
    expect(result.status).toBe('died');
    expect(await printed(kept, 'print(kept)')).toBe('8');
    executor().sessions.close(greedy);
    executor().sessions.close(kept);
  });

  it('answer /run_jupyter without fetch_files (forked, files in place); with fetch_files it takes a warm sandbox', async () => {
    await vi.waitFor(() => expect(executor().stats().sessionZygoteReady).toBe(true), { timeout: 30_000 });
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

  it('still start when the session zygote is killed: the ones it forked end, new ones start (warm, then forked again)', async () => {
    const doomed = await forkedSession();
    const zygote = sessionZygotePid();
    expect(zygote).toBeDefined();
    // Killed idle, once it has forked the next session ahead too (its children: that one's init and doomed's).
    await vi.waitFor(() => expect(childrenOf(zygote as number)).toHaveLength(2), { timeout: 10_000 });
    process.kill(zygote as number, 'SIGKILL');
    const fresh = await executor().sessions.create();
    expect(await printed(fresh.id, 'print("alive")')).toBe('alive');
    await vi.waitFor(() => expect(executor().sessions.info(doomed).alive).toBe(false));
    const forkedAgain = await forkedSession();
    expect(await printed(forkedAgain, 'print("forked again")')).toBe('forked again');
    for (const id of [doomed, fresh.id, forkedAgain]) executor().sessions.close(id);
  });
});

/** `sleep 300` processes this test file's sessions started that are still alive. */
function sleepers(): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return (
        readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u0000300\u0000' &&
        descendsFrom(Number(pid), process.pid)
      );
    } catch {
      return false;
    }
  });
}
