import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { SqlClient, SqlTransaction } from '@fusebox/db/sql-client';
import { readLines, uuidV7 } from '@fusebox/rollouts';
import { DEFAULT_STEMMER, STEMMERS, type Stemmer } from './bm25-terms';
import { type CorpusDocument, parseCorpusLine } from './corpus-line';
import { CorpusImportError } from './errors/corpus-import-error';

/** A line that was skipped, by its 1-based number in the file. */
export interface CorpusProblem {
  line: number;
  problem: string;
}

export interface CorpusImportProgress {
  bytesDone: number;
  bytesTotal: number;
  documents: number;
}

export interface ImportCorpusOptions {
  /** The JSONL file, one `{"id", "contents"}` per line. */
  path: string;
  /** The corpus to import into (default: the file's name without `.jsonl`). */
  name?: string;
  /**
   * How its words are reduced to terms. A new corpus gets DEFAULT_STEMMER (`porter`) unless told otherwise;
   * an existing one keeps its own unless told, and changing it rebuilds the index on the next search.
   */
  stemmer?: Stemmer;
  onProblem?(problem: CorpusProblem): void;
  onProgress?(progress: CorpusImportProgress): void;
}

export interface CorpusImportSummary {
  corpus: { id: string; name: string; stemmer: Stemmer };
  /** Documents and skipped lines of this run; a re-import of a finished file adds 0 and 0. */
  added: number;
  rejected: number;
  /** Documents in the corpus after this run. */
  documents: number;
}

/**
 * Lines per transaction. A transaction holds the embedded database's one session, so a big file goes in pieces
 * that each let the server's queries through; each piece records where it ended.
 */
const PIECE_LINES = 20_000;

interface CorpusRow extends Record<string, unknown> {
  id: string;
  source_path: string;
  bytes_read: string;
  lines_read: number;
  document_count: number;
  stemmer: Stemmer;
}

/**
 * Imports a Search-R1 corpus file into a corpus, from where the last import of it stopped: each piece of the
 * file is COPYed in one transaction that also records the byte offset and line reached, so an interrupted import
 * resumes without losing or repeating a passage. Malformed lines are reported by number and counted, never fatal.
 * Throws CorpusImportError for a file that cannot be imported (missing, shorter than what was imported from it,
 * or a corpus of that name imported from another file).
 *
 * @example
 * const summary = await importCorpus(database.sql, { path: 'wiki-18.jsonl', name: 'wiki' });
 */
export async function importCorpus(
  sql: SqlClient,
  options: ImportCorpusOptions,
): Promise<CorpusImportSummary> {
  const path = resolve(options.path);
  const size = await fileSize(path);
  const name = options.name ?? basename(path).replace(/\.jsonl$/i, '');
  if (name.trim() === '') throw new CorpusImportError('the corpus name must not be empty');
  const { stemmer } = options;
  if (stemmer !== undefined && !STEMMERS.includes(stemmer))
    throw new CorpusImportError(
      `unknown stemmer ${JSON.stringify(stemmer)}; use one of: ${STEMMERS.join(', ')}`,
    );
  const corpus = await openCorpus(sql, name, path, stemmer);
  let bytesRead = Number(corpus.bytes_read);
  if (size < bytesRead) {
    throw new CorpusImportError(
      `${path} is ${size} bytes, but ${bytesRead} were already imported from it into corpus "${name}": ` +
        'the file changed; import it under a new --name',
    );
  }
  let line = corpus.lines_read;
  let documents = corpus.document_count;
  let added = 0;
  let rejected = 0;
  const report = () => options.onProgress?.({ bytesDone: bytesRead, bytesTotal: size, documents });

  let piece: { line: number; document: CorpusDocument }[] = [];
  let pieceRejected = 0;
  let pieceLines = 0;
  let pieceEnd = bytesRead;
  const flush = async () => {
    if (pieceLines === 0) return;
    const rows = piece;
    await sql.transaction(async (tx) => {
      await claimPiece(tx, corpus.id, name, bytesRead);
      await copyDocuments(tx, corpus.id, rows);
      await tx.query(
        `UPDATE "retrieval_corpus" SET "bytes_read" = $2, "lines_read" = "lines_read" + $3,
           "lines_rejected" = "lines_rejected" + $4, "document_count" = "document_count" + $5, "updated_at" = now()
         WHERE "id" = $1`,
        [corpus.id, pieceEnd, pieceLines, pieceRejected, rows.length],
      );
    });
    bytesRead = pieceEnd;
    documents += rows.length;
    added += rows.length;
    rejected += pieceRejected;
    piece = [];
    pieceRejected = 0;
    pieceLines = 0;
    report();
  };

  report();
  for await (const read of readLines(path, bytesRead)) {
    line += 1;
    pieceLines += 1;
    pieceEnd = read.end;
    if (read.text.trim() !== '') {
      const parsed = parseCorpusLine(read.text);
      if ('problem' in parsed) {
        pieceRejected += 1;
        options.onProblem?.({ line, problem: parsed.problem });
      } else {
        piece.push({ line, document: parsed });
      }
    }
    if (pieceLines === PIECE_LINES) await flush();
  }
  await flush();
  return { corpus: { id: corpus.id, name, stemmer: corpus.stemmer }, added, rejected, documents };
}

async function fileSize(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new CorpusImportError(`${path} is not a file`);
    return info.size;
  } catch (error) {
    if (error instanceof CorpusImportError) throw error;
    throw new CorpusImportError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

async function openCorpus(
  sql: SqlClient,
  name: string,
  path: string,
  stemmer: Stemmer | undefined,
): Promise<CorpusRow> {
  await sql.query(
    `INSERT INTO "retrieval_corpus" ("id", "name", "source_path", "stemmer", "updated_at")
     VALUES ($1, $2, $3, $4, now()) ON CONFLICT ("name") DO NOTHING`,
    [uuidV7(), name, path, stemmer ?? DEFAULT_STEMMER],
  );
  const { rows } = await sql.query<CorpusRow>(
    `SELECT "id", "source_path", "bytes_read"::text AS "bytes_read", "lines_read", "document_count", "stemmer"
     FROM "retrieval_corpus" WHERE "name" = $1`,
    [name],
  );
  const corpus = rows[0]!;
  if (corpus.source_path !== path) {
    throw new CorpusImportError(
      `corpus "${name}" was imported from ${corpus.source_path}, not ${path}; choose another --name`,
    );
  }
  if (stemmer !== undefined && corpus.stemmer !== stemmer) {
    // A new updated_at is a new version of the corpus: searchers rebuild its index with the new stemmer.
    await sql.query(`UPDATE "retrieval_corpus" SET "stemmer" = $2, "updated_at" = now() WHERE "id" = $1`, [
      corpus.id,
      stemmer,
    ]);
    corpus.stemmer = stemmer;
  }
  return corpus;
}

/**
 * Locks the corpus's progress for this piece and checks that it still starts where this import thinks: another
 * import of the same corpus running at once would otherwise add the same passages twice.
 */
async function claimPiece(tx: SqlTransaction, corpusId: string, name: string, start: number): Promise<void> {
  const { rows } = await tx.query<{ bytes_read: string }>(
    `SELECT "bytes_read"::text AS "bytes_read" FROM "retrieval_corpus" WHERE "id" = $1 FOR UPDATE`,
    [corpusId],
  );
  if (rows.length === 0) throw new CorpusImportError(`corpus "${name}" was deleted during the import`);
  if (Number(rows[0]!.bytes_read) !== start)
    throw new CorpusImportError(`another import of corpus "${name}" is running; let it finish, then retry`);
}

/** A CSV field: quoted, with quotes doubled (an empty unquoted field would be NULL). */
function field(value: string): string {
  return `"${value.includes('"') ? value.replaceAll('"', '""') : value}"`;
}

async function copyDocuments(
  tx: SqlTransaction,
  corpusId: string,
  rows: readonly { line: number; document: CorpusDocument }[],
): Promise<void> {
  if (rows.length === 0) return;
  function* lines() {
    for (const { line, document } of rows)
      yield `${corpusId},${line},${field(document.id)},${field(document.contents)}\n`;
  }
  await tx.copyCsv('"retrieval_document" ("corpus_id", "line", "doc_id", "contents")', lines());
}
