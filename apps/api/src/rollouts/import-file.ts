import type pg from 'pg';
import { copySamples } from './copy-samples';
import type { DumpFile } from './dump-files';
import { type SampleRow, parseDumpLine } from './dump-line';
import { readLines } from './read-lines';
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
   * Whether a last line without a newline is complete. verl ends every line with one, so while training may
   * still be writing a file (`--watch`), an unterminated line is left for the next pass.
   */
  final: boolean;
  onProblem(problem: ImportProblem): void;
  /** Called as bytes of the file are consumed, for a progress bar. */
  onBytes?(bytes: number): void;
}

interface Progress {
  bytes_read: string;
  lines_read: number;
  lines_rejected: number;
}

/**
 * Imports what is new in one step file: everything after the byte offset recorded for it, in one transaction
 * that COPYs the new samples and records the new offset. So re-importing adds nothing, a crash loses nothing
 * half-done, and two importers of the same run take turns on the file (the progress row is locked).
 */
export async function importDumpFile(
  client: pg.Client,
  runId: string,
  file: DumpFile,
  options: FileImportOptions,
): Promise<FileImportResult> {
  await client.query(
    `INSERT INTO "rollout_file" ("id", "run_id", "name", "step", "updated_at") VALUES ($1, $2, $3, $4, now())
     ON CONFLICT ("run_id", "name") DO NOTHING`,
    [uuidV7(), runId, file.name, file.step],
  );
  await client.query('BEGIN');
  try {
    // A lost commit after a crash is re-imported from the recorded offset, so durability can wait for the
    // next WAL flush; and a bigger GIN pending list merges the new search terms in fewer, larger batches.
    await client.query("SET LOCAL synchronous_commit = off; SET LOCAL gin_pending_list_limit = '64MB'");
    const { rows } = await client.query<Progress>(
      `SELECT "bytes_read", "lines_read", "lines_rejected" FROM "rollout_file"
       WHERE "run_id" = $1 AND "name" = $2 FOR UPDATE`,
      [runId, file.name],
    );
    const progress = rows[0]!;
    const start = Number(progress.bytes_read);
    if (file.size <= start) {
      await client.query('ROLLBACK');
      if (file.size === 0) return { added: 0, rejected: 0, note: 'empty, nothing to import yet' };
      return file.size < start
        ? {
            added: 0,
            rejected: 0,
            note: `shrank to ${file.size} bytes after ${start} were imported; was it rewritten?`,
          }
        : { added: 0, rejected: 0 };
    }

    let end = start;
    let lineNumber = progress.lines_read;
    let added = 0;
    let rejected = 0;
    async function* samples(): AsyncGenerator<SampleRow> {
      for await (const line of readLines(file.path, start)) {
        if (!line.complete && !options.final) break;
        lineNumber += 1;
        options.onBytes?.(line.end - end);
        end = line.end;
        if (line.text.trim() === '') continue;
        const parsed = parseDumpLine(line.text, lineNumber);
        if (parsed.ok) {
          added += 1;
          yield parsed.row;
        } else {
          rejected += 1;
          options.onProblem({ file: file.name, line: lineNumber, problem: parsed.problem });
        }
      }
    }
    await copySamples(client, runId, file.step, samples());
    await client.query(
      `UPDATE "rollout_file" SET "bytes_read" = $3, "lines_read" = $4, "lines_rejected" = "lines_rejected" + $5,
         "updated_at" = now() WHERE "run_id" = $1 AND "name" = $2`,
      [runId, file.name, end, lineNumber, rejected],
    );
    if (added > 0)
      await client.query('UPDATE "rollout_run" SET "updated_at" = now() WHERE "id" = $1', [runId]);
    await client.query('COMMIT');
    return { added, rejected };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
