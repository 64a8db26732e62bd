import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UnsafePathError } from '../src/errors';
import type { SandboxWorkdir } from '../src/sandbox';
import { MAX_FILE_DIRECTORY_DEPTH, writeFiles } from '../src/workdir-files';

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
