import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UnsafePathError } from '../src/errors';
import type { SandboxWorkdir } from '../src/sandbox';
import { MAX_FILE_DIRECTORIES, MAX_FILE_DIRECTORY_DEPTH, writeFiles } from '../src/workdir-files';

const hosts: string[] = [];
afterEach(() => {
  for (const host of hosts.splice(0)) rmSync(host, { recursive: true, force: true });
});

function workdir(): SandboxWorkdir {
  const host = mkdtempSync(join(tmpdir(), 'fusebox-write-files-'));
  hosts.push(host);
  return { inside: host, host, tmp: host, owner: undefined, release: () => undefined };
}

const base64 = (text: string) => Buffer.from(text).toString('base64');

describe('writeFiles', () => {
  it(`writes files as deep as ${MAX_FILE_DIRECTORY_DEPTH} directories, many sharing one`, async () => {
    const target = workdir();
    const deepest = Array.from({ length: MAX_FILE_DIRECTORY_DEPTH }, (_, i) => `d${i}`).join('/');
    const files = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`${deepest}/f${i}.txt`, base64(`file ${i}`)]),
    );
    await writeFiles(target, { ...files, 'd0/top.txt': base64('top'), 'skipped.txt': null });
    expect(readdirSync(join(target.host, deepest))).toHaveLength(200);
    expect(readFileSync(join(target.host, deepest, 'f199.txt'), 'utf8')).toBe('file 199');
    expect(readFileSync(join(target.host, 'd0/top.txt'), 'utf8')).toBe('top');
    expect(readdirSync(target.host)).toEqual(['d0']);
  });

  it(`makes up to ${MAX_FILE_DIRECTORIES} directories for a request, and refuses one more before writing`, async () => {
    const target = workdir();
    const inDirectories = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`case${i}/in.txt`, base64(String(i))]));
    await expect(writeFiles(target, inDirectories(MAX_FILE_DIRECTORIES + 1))).rejects.toThrow(
      `the files need more than ${MAX_FILE_DIRECTORIES} directories`,
    );
    expect(readdirSync(target.host)).toEqual([]);
    await writeFiles(target, inDirectories(MAX_FILE_DIRECTORIES));
    expect(readdirSync(target.host)).toHaveLength(MAX_FILE_DIRECTORIES);
  });

  it("refuses, before writing, a file that is another's directory, and names Linux would refuse", async () => {
    const target = workdir();
    const refusals = [
      [{ a: base64('1'), 'a/b': base64('2') }, 'a path cannot be a file and a directory'],
      [{ a: base64('1'), './a': base64('2') }, 'another of the files names the same file'],
      [{ [`${'n'.repeat(256)}/f`]: base64('1') }, 'one of its names is longer than 255 bytes'],
      [{ [`${`${'n'.repeat(250)}/`.repeat(17)}f`]: base64('1') }, 'it is 4096 bytes or longer'],
    ] as const;
    for (const [files, reason] of refusals) {
      await expect(writeFiles(target, files)).rejects.toThrow(reason);
    }
    expect(readdirSync(target.host)).toEqual([]);
    // Controls: a 255-byte name, and the same names as two files apart.
    await writeFiles(target, { [`${'n'.repeat(255)}/f`]: base64('1'), a: base64('1'), 'b/a': base64('2') });
    expect(readdirSync(target.host).sort()).toEqual(['a', 'b', 'n'.repeat(255)]);
  });

  it("measures a path's length where it is written, after the working directory's own path", async () => {
    const target = workdir();
    // 19 names of 200 bytes, then one that brings the whole host path to 4096 bytes, or to 4095.
    const path = (total: number) => {
      const directories = `${'d'.repeat(200)}/`.repeat(19);
      return `${directories}${'f'.repeat(total - Buffer.byteLength(`${target.host}/${directories}`))}`;
    };
    await expect(writeFiles(target, { [path(4096)]: base64('1') })).rejects.toThrow(
      'in the working directory it is 4096 bytes or longer',
    );
    await writeFiles(target, { [path(4095)]: base64('1') });
    expect(readFileSync(join(target.host, path(4095)), 'utf8')).toBe('1');
  });

  it('refuses a path one directory deeper, before writing anything', async () => {
    const target = workdir();
    const tooDeep = `${'d/'.repeat(MAX_FILE_DIRECTORY_DEPTH + 1)}f.txt`;
    const writing = writeFiles(target, { 'first.txt': base64('1'), [tooDeep]: base64('2') });
    await expect(writing).rejects.toThrow(UnsafePathError);
    await expect(writing).rejects.toThrow(`more than ${MAX_FILE_DIRECTORY_DEPTH} directories deep`);
    expect(readdirSync(target.host)).toEqual([]);
    // The depth counted is the normalised path's: `..` that come back up do not count.
    await writeFiles(target, { [`${'d/'.repeat(MAX_FILE_DIRECTORY_DEPTH)}x/../f.txt`]: base64('3') });
    expect(readFileSync(join(target.host, `${'d/'.repeat(MAX_FILE_DIRECTORY_DEPTH)}f.txt`), 'utf8')).toBe(
      '3',
    );
  });
});
