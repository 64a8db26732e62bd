import { open } from 'node:fs/promises';
import type { SqlClient, SqlTransaction } from '@fusebox/db/sql-client';
import { copySamples } from './copy-samples';
import type { DumpFile } from './dump-files';
import { type SampleRow, parseDumpLine } from './dump-line';
import { readLines } from './read-lines';
import { TermPostings } from './term-postings';
import { uuidV7 } from './uuid-v7';

/** A line that was skipped, as `file:line: problem`. */
export interface ImportProblem {
  file: string;
  line: number;
  problem: string;
}

export interface FileImportResult {
  added: number;
  rejected: number;
  /** Set when the file was not imported at all, with why. */
  note?: string;
}

export interface FileImportOptions {
  /**
   * Whether the file is finished being written, so a last line without a newline may be taken: it is, if it is
   * whole JSON (a part of a line is left for the next pass either way). verl ends every line with one, so while
   * training may still be writing a file (`--watch`), an unterminated line is left for the next pass.
   */
  final: boolean;
  onProblem(problem: ImportProblem): void;
  /** Called as bytes of the file are consumed, for a progress bar. */
  onBytes?(bytes: number): void;
}

interface Progress extends Record<string, unknown> {
  bytes_read: string;
  lines_read: number;
  lines_rejected: number;
}

/**
 * Bytes of a file imported per transaction. A transaction holds the embedded database's one session, so a big
 * file goes in pieces that each let the server's own queries through; each piece records its end offset.
 */
const PIECE_BYTES = 32 * 1024 * 1024;

/**
 * Imports what is new in one step file: everything after the byte offset recorded for it, in transactions that
 * each COPY a piece of the new samples and record the offset reached. So re-importing adds nothing, a crash
 * loses nothing half-done, and two importers of the same run take turns on the file (the progress row is
 * locked, and each piece starts from the offset recorded last).
 */
export async function importDumpFile(
  client: SqlClient,
  runId: string,
  file: DumpFile,
  options: FileImportOptions,
): Promise<FileImportResult> {
  await client.query(
    `INSERT INTO "rollout_file" ("id", "run_id", "name", "step", "updated_at") VALUES ($1, $2, $3, $4, now())
     ON CONFLICT ("run_id", "name") DO NOTHING`,
    [uuidV7(), runId, file.name, file.step],
  );
  const total: FileImportResult = { added: 0, rejected: 0 };
  for (let first = true; ; first = false) {
    const piece = await client.transaction((tx) => importPiece(tx, runId, file, options));
    // A note (empty, shrunk) can only come before anything was imported by this call.
    if (piece.note !== undefined) return first ? { added: 0, rejected: 0, note: piece.note } : total;
    total.added += piece.added;
    total.rejected += piece.rejected;
    if (piece.last) return total;
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether the byte before `offset` is a newline: whether the file's imported part ends a line. */
async function endsLine(path: string, offset: number): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const byte = Buffer.alloc(1);
    await handle.read(byte, 0, 1, offset - 1);
    return byte[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

async function importPiece(
  tx: SqlTransaction,
  runId: string,
  file: DumpFile,
  options: FileImportOptions,
): Promise<{ added: number; rejected: number; last: boolean; note?: string }> {
  // Committed durably, as every answer is (issue #20; it was synchronous_commit = off): a one-shot import has
  // reported its count, and nobody re-imports what a crash lost. It costs one WAL flush per piece of 32 MB.
  const { rows } = await tx.query<Progress>(
    `SELECT "bytes_read", "lines_read", "lines_rejected" FROM "rollout_file"
     WHERE "run_id" = $1 AND "name" = $2 FOR UPDATE`,
    [runId, file.name],
  );
  const progress = rows[0]!;
  const start = Number(progress.bytes_read);
  if (file.size <= start) {
    const nothing = { added: 0, rejected: 0, last: true };
    if (file.size === 0) return { ...nothing, note: 'empty, nothing to import yet' };
    return file.size < start
      ? { ...nothing, note: `shrank to ${file.size} bytes after ${start} were imported; was it rewritten?` }
      : nothing;
  }

  let end = start;
  let lineNumber = progress.lines_read;
  let added = 0;
  let rejected = 0;
  let last = true;
  const postings = new TermPostings();
  // An earlier import took a last line whose newline had not been written yet: that newline, when it comes,
  // ends the line already imported and is no line of its own.
  let newlineOwed = start > 0 && !(await endsLine(file.path, start));
  async function* samples(): AsyncGenerator<SampleRow> {
    for await (const line of readLines(file.path, start)) {
      if (newlineOwed) {
        newlineOwed = false;
        if (line.complete && line.text === '') {
          options.onBytes?.(line.end - end);
          end = line.end;
          continue;
        }
      }
      if (!line.complete && !options.final) break;
      const parsed = line.text.trim() === '' ? null : parseDumpLine(line.text, lineNumber + 1);
      // Once the file is quiet, a last line without its newline is taken if it is whole JSON; a part of a line
      // is left until its rest is written, rather than rejected now and its rest rejected later.
      if (!line.complete && parsed && !parsed.ok && !isJson(line.text)) break;
      lineNumber += 1;
      options.onBytes?.(line.end - end);
      end = line.end;
      if (parsed) {
        if (parsed.ok) {
          added += 1;
          postings.add(lineNumber, [parsed.row.input, parsed.row.output]);
          yield parsed.row;
        } else {
          rejected += 1;
          options.onProblem({ file: file.name, line: lineNumber, problem: parsed.problem });
        }
      }
      if (end - start >= PIECE_BYTES) {
        last = end >= file.size;
        break;
      }
    }
  }
  await copySamples(tx, runId, file.step, samples());
  await postings.copy(tx, runId, file.step);
  await tx.query(
    `UPDATE "rollout_file" SET "bytes_read" = $3, "lines_read" = $4, "lines_rejected" = "lines_rejected" + $5,
       "updated_at" = now() WHERE "run_id" = $1 AND "name" = $2`,
    [runId, file.name, end, lineNumber, rejected],
  );
  if (added > 0) await tx.query('UPDATE "rollout_run" SET "updated_at" = now() WHERE "id" = $1', [runId]);
  return { added, rejected, last };
}
