import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/group-commit';

describe('GroupCommit', () => {
  it('writes what arrives together in one call, and answers each caller with its own result', async () => {
    const calls: number[][] = [];
    const commit = new GroupCommit((items: number[]) => {
      calls.push(items);
      return Promise.resolve(items.map((item) => item * 10));
    });
    expect(await Promise.all([1, 2, 3].map((item) => commit.submit(item)))).toEqual([10, 20, 30]);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('fails only the item a failed batch was failed by, writing the others one by one', async () => {
    const commit = new GroupCommit((items: number[]) =>
      items.includes(2) ? Promise.reject(new Error('2 violates a constraint')) : Promise.resolve(items),
    );
    const results = await Promise.allSettled([1, 2, 3].map((item) => commit.submit(item)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('2 violates a constraint') },
      { status: 'fulfilled', value: 3 },
    ]);
  });

  it('fails the whole batch at once when the error is no item’s fault', async () => {
    let calls = 0;
    const down = new Error('the database is down');
    const commit = new GroupCommit(
      () => {
        calls += 1;
        return Promise.reject(down);
      },
      { failsEveryItem: (error) => error === down },
    );
    const results = await Promise.allSettled([1, 2, 3].map((item) => commit.submit(item)));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(calls).toBe(1);
  });

  it('refuses a batch size that is not a positive integer', () => {
    expect(() => new GroupCommit(() => Promise.resolve([]), { maxBatch: 0 })).toThrow(
      /maxBatch to be a positive integer/,
    );
  });
});
