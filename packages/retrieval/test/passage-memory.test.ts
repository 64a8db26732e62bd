import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorpusSearcher } from '../src/corpus-searcher';
import { importCorpus } from '../src/import-corpus';
import { PASSAGE_OVERHEAD_BYTES } from '../src/passage-store';

/** Ten passages that all match the query `tragedy`, each 100 bytes of UTF-8 with its id (`p0`..`p9`). */
const PASSAGES = Array.from({ length: 10 }, (_, i) => {
  const text = `"Play ${i}"\ntragedy é ${'x'.repeat(100)}`;
  // Cut to 98 bytes of contents (the id is 2): 'é' is 2 bytes, so the text is one byte shorter than its length.
  return { id: `p${i}`, contents: text.slice(0, 97) };
});
const PASSAGE_BYTES = 100;

describe('passages kept in memory, up to a bound', () => {
  let database: TestDatabase;
  let opened: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
    const path = join(await mkdtemp(join(tmpdir(), 'fusebox-passages-')), 'plays.jsonl');
    await writeFile(path, PASSAGES.map((passage) => `${JSON.stringify(passage)}\n`).join(''));
    expect(Buffer.byteLength(PASSAGES[0]!.id + PASSAGES[0]!.contents)).toBe(PASSAGE_BYTES);
    await importCorpus(opened.sql, { path, name: 'plays' });
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  /** The passages in the database: as imported, or all changed (which a passage kept in memory does not see). */
  async function setPassages(imported: boolean) {
    for (const { id, contents } of PASSAGES) {
      await opened.sql.query(`UPDATE "retrieval_document" SET "contents" = $1 WHERE "doc_id" = $2`, [
        imported ? contents : 'from the database',
        id,
      ]);
    }
  }

  async function answers(passageMemoryBytes: number | undefined) {
    const searcher = new CorpusSearcher(opened.prisma, {
      ...(passageMemoryBytes === undefined ? {} : { passageMemoryBytes }),
    });
    await setPassages(true);
    await searcher.warm();
    await setPassages(false);
    const { results } = await searcher.search({
      corpus: await searcher.resolveCorpus('plays'),
      queries: ['tragedy'],
      topk: 10,
    });
    const byId = new Map(results[0]!.map((doc) => [doc.id, doc.contents]));
    return {
      fromMemory: PASSAGES.filter(({ id, contents }) => byId.get(id) === contents).map(({ id }) => id),
      fromDatabase: [...byId].filter(([, contents]) => contents === 'from the database').map(([id]) => id),
      kept: await searcher.passagesInMemory(),
    };
  }

  it('answers every passage from memory by default', async () => {
    const { fromMemory, fromDatabase, kept } = await answers(undefined);
    expect(fromMemory).toHaveLength(10);
    expect(fromDatabase).toEqual([]);
    expect(kept).toMatchObject([{ kept: 10 }]);
  });

  it('keeps the first passages that fit the bound, and reads the others from the database', async () => {
    // Room for four passages' text and overhead, and a little more, not a fifth.
    const bound = 4 * (PASSAGE_BYTES + PASSAGE_OVERHEAD_BYTES) + 50;
    const { fromMemory, fromDatabase, kept } = await answers(bound);
    expect(fromMemory.sort()).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(fromDatabase.sort()).toEqual(['p4', 'p5', 'p6', 'p7', 'p8', 'p9']);
    expect(kept[0]!.kept).toBe(4);
    expect(kept[0]!.bytes).toBeLessThanOrEqual(bound);
  });

  it('reads every passage from the database with a bound of 0', async () => {
    const { fromMemory, fromDatabase, kept } = await answers(0);
    expect(fromMemory).toEqual([]);
    expect(fromDatabase).toHaveLength(10);
    expect(kept).toMatchObject([{ kept: 0, bytes: 0 }]);
  });

  it('gives a rebuilt index’s memory back, so the bound is not used up by old copies', async () => {
    const bound = 10 * (PASSAGE_BYTES + PASSAGE_OVERHEAD_BYTES) + 50;
    const searcher = new CorpusSearcher(opened.prisma, { refreshMs: 0, passageMemoryBytes: bound });
    const search = async () =>
      searcher.search({ corpus: await searcher.resolveCorpus('plays'), queries: ['tragedy'], topk: 10 });
    await setPassages(true);
    await search();
    expect(await searcher.passagesInMemory()).toMatchObject([{ kept: 10 }]);
    // A new version of the corpus (an import touched it) makes the next search rebuild the index.
    await opened.sql.query(`UPDATE "retrieval_corpus" SET "updated_at" = now() + interval '1 second'`);
    await search();
    expect(await searcher.passagesInMemory()).toMatchObject([{ kept: 10 }]);
  });
});
