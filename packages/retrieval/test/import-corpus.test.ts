import { appendFile, mkdtemp, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@fusebox/db/database';
import { createTestDatabase, type TestDatabase } from '@fusebox/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorpusSearcher } from '../src/corpus-searcher';
import { CorpusChoiceError } from '../src/errors/corpus-choice-error';
import { CorpusImportError } from '../src/errors/corpus-import-error';
import { UnknownCorpusError } from '../src/errors/unknown-corpus-error';
import { type CorpusProblem, importCorpus } from '../src/import-corpus';

const passage = (id: number | string, title: string, text: string) =>
  JSON.stringify({ id, contents: `"${title}"\n${text}` });

async function corpusFile(lines: string[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'fusebox-corpus-')), 'wiki.jsonl');
  await writeFile(path, lines.map((line) => `${line}\n`).join(''));
  return path;
}

describe('importing a Search-R1 corpus and searching it', () => {
  let database: TestDatabase;
  let opened: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    opened = await database.open();
  });
  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  it('imports passages, reports malformed lines by number, and a re-import adds nothing', async () => {
    const path = await corpusFile([
      passage(0, 'Hamlet', 'Hamlet is a tragedy written by William Shakespeare.'),
      '{"id": 1, "contents": ',
      passage(2, 'Macbeth', 'Macbeth is a tragedy by Shakespeare about a Scottish king.'),
      JSON.stringify({ id: 3 }),
      '',
      JSON.stringify({ id: { nested: true }, contents: 'x' }),
      passage('doc-7', 'Thames', 'The Thames is a river that flows through London.'),
    ]);
    const problems: CorpusProblem[] = [];
    const first = await importCorpus(opened.sql, { path, name: 'plays', onProblem: (p) => problems.push(p) });
    expect(first).toMatchObject({ corpus: { name: 'plays' }, added: 3, rejected: 3, documents: 3 });
    expect(problems.map((problem) => problem.line)).toEqual([2, 4, 6]);
    expect(problems[0]!.problem).toMatch(/^not JSON/);
    expect(problems[1]!.problem).toBe('missing "contents"');
    expect(problems[2]!.problem).toMatch(/"id" must be a string or an integer/);

    const again = await importCorpus(opened.sql, { path, name: 'plays' });
    expect(again).toMatchObject({ added: 0, rejected: 0, documents: 3 });

    await appendFile(path, `${passage(8, 'Othello', 'Othello is a tragedy set in Venice.')}\n`);
    const more = await importCorpus(opened.sql, { path, name: 'plays' });
    expect(more).toMatchObject({ added: 1, documents: 4 });
    const { rows } = await opened.sql.query<{ line: number; doc_id: string }>(
      `SELECT d."line", d."doc_id" FROM "retrieval_document" d JOIN "retrieval_corpus" c ON c."id" = d."corpus_id"
       WHERE c."name" = 'plays' ORDER BY d."line"`,
    );
    expect(rows).toEqual([
      { line: 1, doc_id: '0' },
      { line: 3, doc_id: '2' },
      { line: 7, doc_id: 'doc-7' },
      { line: 8, doc_id: '8' },
    ]);
  });

  it('resumes an interrupted import where it stopped, losing and repeating nothing', async () => {
    const count = 45_000;
    const path = await corpusFile(
      Array.from({ length: count }, (_, i) =>
        passage(i, `Title ${i}`, `passage number ${i} about topic${i % 97}`),
      ),
    );
    const interrupted = new Error('interrupted');
    await expect(
      importCorpus(opened.sql, {
        path,
        name: 'big',
        onProgress: (progress) => {
          if (progress.documents > 0) throw interrupted;
        },
      }),
    ).rejects.toBe(interrupted);
    const { rows: partial } = await opened.sql.query<{ n: number }>(
      `SELECT "document_count" AS n FROM "retrieval_corpus" WHERE "name" = 'big'`,
    );
    expect(partial[0]!.n).toBeGreaterThan(0);
    expect(partial[0]!.n).toBeLessThan(count);

    const resumed = await importCorpus(opened.sql, { path, name: 'big' });
    expect(resumed.added).toBe(count - partial[0]!.n);
    const { rows } = await opened.sql.query<{ n: number; distinct_ids: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT d."doc_id")::int AS distinct_ids FROM "retrieval_document" d
       JOIN "retrieval_corpus" c ON c."id" = d."corpus_id" WHERE c."name" = 'big'`,
    );
    expect(rows[0]).toEqual({ n: count, distinct_ids: count });
  });

  it('refuses a missing file, another file under a taken name, and a file shorter than what was imported', async () => {
    await expect(importCorpus(opened.sql, { path: '/nonexistent/corpus.jsonl' })).rejects.toThrow(
      /cannot read \/nonexistent\/corpus.jsonl/,
    );
    const other = await corpusFile([passage(0, 'Other', 'another file')]);
    await expect(importCorpus(opened.sql, { path: other, name: 'plays' })).rejects.toThrow(
      /corpus "plays" was imported from .*wiki.jsonl, not .*; choose another --name/,
    );
    const shrinking = await corpusFile([passage(0, 'A', 'first'), passage(1, 'B', 'second')]);
    await importCorpus(opened.sql, { path: shrinking, name: 'shrinking' });
    await truncate(shrinking, 10);
    await expect(importCorpus(opened.sql, { path: shrinking, name: 'shrinking' })).rejects.toBeInstanceOf(
      CorpusImportError,
    );
  });

  it('searches a named corpus with scores, and rebuilds its index after an import adds passages', async () => {
    const searcher = new CorpusSearcher(opened.prisma, { refreshMs: 0 });
    const { corpus, results } = await searcher.search({
      corpus: await searcher.resolveCorpus('plays'),
      queries: ['Shakespeare tragedy', 'river London'],
      topk: 2,
    });
    expect(corpus.name).toBe('plays');
    expect(results.map((list) => list.map((doc) => doc.id))).toEqual([['0', '2'], ['doc-7']]);
    const { score, ...thames } = results[1]![0]!;
    expect(thames).toEqual({
      id: 'doc-7',
      contents: '"Thames"\nThe Thames is a river that flows through London.',
    });
    expect(score).toBeGreaterThan(0);
    expect(results[0]![0]!.score).toBeGreaterThan(results[0]![1]!.score);

    const path = (
      await opened.sql.query<{ source_path: string }>(
        `SELECT "source_path" FROM "retrieval_corpus" WHERE "name" = 'plays'`,
      )
    ).rows[0]!.source_path;
    await appendFile(path, `${passage(9, 'Lear', 'King Lear, a tragedy by Shakespeare, Shakespeare.')}\n`);
    await importCorpus(opened.sql, { path, name: 'plays' });
    const after = await searcher.search({
      corpus: await searcher.resolveCorpus('plays'),
      queries: ['Shakespeare'],
      topk: 1,
    });
    expect(after.results[0]![0]!.id).toBe('9');
  });

  it('reuses a corpus as read for refreshMs, so a search in that window costs no query to find it', async () => {
    const searcher = new CorpusSearcher(opened.prisma, { refreshMs: 3_600_000 });
    const before = await searcher.resolveCorpus('plays');
    const path = (
      await opened.sql.query<{ source_path: string }>(
        `SELECT "source_path" FROM "retrieval_corpus" WHERE "name" = 'plays'`,
      )
    ).rows[0]!.source_path;
    await appendFile(path, `${passage(10, 'Tempest', 'The Tempest is a play by Shakespeare.')}\n`);
    await importCorpus(opened.sql, { path, name: 'plays' });
    expect(await searcher.resolveCorpus('plays')).toBe(before);
    expect((await new CorpusSearcher(opened.prisma).resolveCorpus('plays')).documentCount).toBe(
      before.documentCount + 1,
    );
  });

  it("builds every corpus's index ahead of the first search when warmed", async () => {
    const counts = await opened.sql.query<{ name: string; document_count: number }>(
      `SELECT "name", "document_count" FROM "retrieval_corpus" ORDER BY "name"`,
    );
    expect(await new CorpusSearcher(opened.prisma).warm()).toEqual(
      counts.rows.map((row) => ({ name: row.name, documents: row.document_count })),
    );
  });

  it('names the corpora when a search names an unknown one or none among several', async () => {
    const searcher = new CorpusSearcher(opened.prisma, { refreshMs: 0 });
    await expect(searcher.resolveCorpus('nope')).rejects.toThrow(
      new UnknownCorpusError('nope', ['big', 'plays', 'shrinking']),
    );
    await expect(searcher.resolveCorpus(undefined)).rejects.toBeInstanceOf(CorpusChoiceError);
  });

  it("stems with Porter's stemmer by default, keeps a corpus's own stemmer, and rebuilds when it changes", async () => {
    const lines = [
      passage('c1', 'Paris', 'Paris is the largest city of France.'),
      passage('c2', 'Rivers', 'Many cities lie on rivers.'),
    ];
    const searcher = new CorpusSearcher(opened.prisma, { refreshMs: 0 });
    const ids = async (name: string, query: string) =>
      (
        await searcher.search({ corpus: await searcher.resolveCorpus(name), queries: [query], topk: 5 })
      ).results[0]!.map((doc) => doc.id);

    const stemmed = await importCorpus(opened.sql, { path: await corpusFile(lines), name: 'stemmed' });
    expect(stemmed.corpus.stemmer).toBe('porter');
    expect((await ids('stemmed', 'cities')).sort()).toEqual(['c1', 'c2']);

    const path = await corpusFile(lines);
    const plain = await importCorpus(opened.sql, { path, name: 'plain', stemmer: 'none' });
    expect(plain.corpus.stemmer).toBe('none');
    expect(await ids('plain', 'cities')).toEqual(['c2']);
    // A re-import without a stemmer keeps the corpus's; one with another changes it, and the index with it.
    expect((await importCorpus(opened.sql, { path, name: 'plain' })).corpus.stemmer).toBe('none');
    await importCorpus(opened.sql, { path, name: 'plain', stemmer: 'porter' });
    expect((await ids('plain', 'cities')).sort()).toEqual(['c1', 'c2']);

    await expect(
      importCorpus(opened.sql, { path, name: 'plain', stemmer: 'snowball' as 'none' }),
    ).rejects.toThrow('unknown stemmer "snowball"; use one of: porter, none');
  });

  it('searches a corpus imported before stemming existed as it did then, without stemming', async () => {
    const lines = [
      passage('o1', 'Paris', 'Paris is a city.'),
      passage('o2', 'Rivers', 'Cities lie on rivers.'),
    ];
    const path = await corpusFile(lines);
    await importCorpus(opened.sql, { path, name: 'old' });
    // What the migration left such a corpus with: the column's default.
    await opened.sql.query(
      `UPDATE "retrieval_corpus" SET "stemmer" = DEFAULT, "updated_at" = now() WHERE "name" = 'old'`,
    );
    const searcher = new CorpusSearcher(opened.prisma);
    const { results } = await searcher.search({
      corpus: await searcher.resolveCorpus('old'),
      queries: ['cities'],
      topk: 5,
    });
    expect(results[0]!.map((doc) => doc.id)).toEqual(['o2']);
  });
});
