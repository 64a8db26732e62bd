import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { SessionBusyError } from '../src/errors/session-busy-error';
import { SessionDeadError } from '../src/errors/session-dead-error';
import { SessionLimitError } from '../src/errors/session-limit-error';
import { SessionNotFoundError } from '../src/errors/session-not-found-error';
import { UnsafePathError } from '../src/errors/unsafe-path-error';
import { useExecutor } from './use-executor';

const { executor } = useExecutor({ maxSessions: 3 });
const sessions = () => executor().sessions;

describe('sessions', () => {
  it('keeps state across cells, shows expression values and keeps going after an exception', async () => {
    const { id } = await sessions().create();
    try {
      expect((await sessions().run(id, 'import math\ntotal = 40')).status).toBe('ok');
      const value = await sessions().run(id, 'total + 2');
      expect(value).toMatchObject({ status: 'ok', executionCount: 2, display: [{ 'text/plain': '42' }] });
      const printed = await sessions().run(
        id,
        'print(total)\nimport os\nos.system("echo from a subprocess")\nNone',
      );
      expect(printed).toMatchObject({ stdout: '40\nfrom a subprocess\n', display: [] });
      const failed = await sessions().run(id, 'def f():\n    return 1 / 0\nf()');
      expect(failed.status).toBe('error');
      expect(failed.error[0]).toMatchObject({ ename: 'ZeroDivisionError', evalue: 'division by zero' });
      expect(failed.error[0]?.traceback.join('\n')).toContain('return 1 / 0');
      expect((await sessions().run(id, 'math.sqrt(total + 9)')).display).toEqual([{ 'text/plain': '7.0' }]);
      expect(sessions().info(id)).toMatchObject({ alive: true, executionCount: 5 });
    } finally {
      sessions().close(id);
    }
  });

  it('writes files before the first cell and keeps the working directory between cells', async () => {
    const { id } = await sessions().create({
      files: { 'data/in.txt': Buffer.from('hi').toString('base64') },
    });
    try {
      await sessions().run(id, 'open("notes.txt", "w").write(open("data/in.txt").read() * 2)');
      expect((await sessions().run(id, 'open("notes.txt").read()')).display).toEqual([
        { 'text/plain': "'hihi'" },
      ]);
    } finally {
      sessions().close(id);
    }
    await expect(sessions().create({ files: { '../x': '' } })).rejects.toBeInstanceOf(UnsafePathError);
  });

  it('stops the interpreter of a cell that times out; the session then needs a restart, which clears the state', async () => {
    const { id } = await sessions().create({ cellTimeoutMs: 500 });
    try {
      await sessions().run(id, 'x = 1');
      const slow = await sessions().run(id, 'import time\ntime.sleep(30)');
      expect(slow.status).toBe('timeout');
      expect(slow.error[0]?.ename).toBe('TimeoutError');
      expect(sessions().info(id).alive).toBe(false);
      await expect(sessions().run(id, 'x')).rejects.toBeInstanceOf(SessionDeadError);
      const restarted = await sessions().restart(id);
      expect(restarted).toMatchObject({ id, alive: true, executionCount: 0 });
      const after = await sessions().run(id, 'x');
      expect(after.error[0]?.ename).toBe('NameError');
    } finally {
      sessions().close(id);
    }
  });

  it('reports a cell that crashes the interpreter clearly, and can be restarted', async () => {
    const { id } = await sessions().create();
    try {
      const crashed = await sessions().run(id, 'import os\nos._exit(3)');
      expect(crashed.status).toBe('died');
      expect(crashed.error[0]?.evalue).toContain('the interpreter died while running this cell');
      await sessions().restart(id);
      expect((await sessions().run(id, '1 + 1')).display).toEqual([{ 'text/plain': '2' }]);
    } finally {
      sessions().close(id);
    }
  });

  it('keeps IPython state across requests: magics, `!` output captured into Python, figures as image/png', async () => {
    const { id } = await sessions().create();
    try {
      expect((await sessions().run(id, 'files = !echo one; echo two')).status).toBe('ok');
      expect((await sessions().run(id, 'files')).display[0]?.['text/plain']).toBe("['one', 'two']");
      const figure = await sessions().run(id, 'import matplotlib.pyplot as plt\nplt.bar([1, 2], [3, 4])');
      expect(figure.display.some((bundle) => typeof bundle['image/png'] === 'string')).toBe(true);
      expect((await sessions().run(id, '%who_ls')).display[0]?.['text/plain']).toContain("'files'");
    } finally {
      sessions().close(id);
    }
  });

  it('limits the interpreter memory when asked: a large allocation raises MemoryError and the session lives on', async () => {
    const { id } = await sessions().create({ memoryLimitMB: 256 });
    try {
      const big = await sessions().run(id, 'x = bytearray(512 * 1024 * 1024)');
      expect(big.error[0]?.ename).toBe('MemoryError');
      expect((await sessions().run(id, 'len(bytearray(1024))')).display).toEqual([{ 'text/plain': '1024' }]);
    } finally {
      sessions().close(id);
    }
  });

  it('runs one cell at a time per session', async () => {
    const { id } = await sessions().create();
    try {
      const first = sessions().run(id, 'import time\ntime.sleep(0.5)\n"first"');
      await expect(sessions().run(id, '"second"')).rejects.toBeInstanceOf(SessionBusyError);
      expect((await first).display).toEqual([{ 'text/plain': "'first'" }]);
    } finally {
      sessions().close(id);
    }
  });

  it('closes a session on request or after its idle timeout, then forgets it', async () => {
    const closed = await sessions().create();
    sessions().close(closed.id);
    await expect(sessions().run(closed.id, '1')).rejects.toBeInstanceOf(SessionNotFoundError);

    const idle = await sessions().create({ idleTimeoutMs: 300 });
    await sessions().run(idle.id, '1');
    await sleep(1_000);
    expect(() => sessions().info(idle.id)).toThrow(SessionNotFoundError);
  });

  it('refuses a session beyond maxSessions until one is closed', async () => {
    const open = await Promise.all([sessions().create(), sessions().create(), sessions().create()]);
    await expect(sessions().create()).rejects.toBeInstanceOf(SessionLimitError);
    sessions().close(open[0].id);
    const another = await sessions().create();
    for (const { id } of [...open.slice(1), another]) sessions().close(id);
  });
});
