import type { SqlClient } from '@fusebox/db/sql-client';
import { type DumpFile, listDumpFiles } from './dump-files';
import { eachInSessions } from './each-in-sessions';
import { type ImportProblem, importDumpFile } from './import-file';
import { type RunRef, ensureRun } from './rollout-run';

export interface ImportProgress {
  bytesDone: number;
  bytesTotal: number;
  samples: number;
}

export interface ImportDumpOptions {
  dir: string;
  /** The run's name; the directory's name by default. */
  name?: string;
  /**
   * While training may still be writing (a watcher): a file modified within this many ms keeps a last line
   * without a newline for the next pass (see FileImportOptions.final). Unset: every file is finished.
   */
  quietMs?: number;
  /**
   * Step files imported at once when `openSession` is given (default DEFAULT_IMPORT_JOBS), each in a session of
   * its own: on a Postgres server, each session's COPY and index upkeep run in a backend of their own.
   */
  jobs?: number;
  /** Opens another SQL session; the import closes it. Without it, files go one at a time. */
  openSession?: () => Promise<SqlClient>;
  onProblem?(problem: ImportProblem): void;
  onProgress?(progress: ImportProgress): void;
  /** Called once per file that had something new or something wrong. */
  onFile?(file: DumpFile, result: { added: number; rejected: number; note?: string }): void;
}

export interface ImportSummary {
  run: RunRef;
  /** How many step files the directory has. */
  files: number;
  added: number;
  rejected: number;
  /** Files left out, with why (non-numeric names, duplicates of a step, files that shrank). */
  skipped: { name: string; reason: string }[];
}

/**
 * Step files imported at once by default. Postgres spends most of an import's CPU (COPY, the search index), in
 * one backend per session: two sessions took a 30k-sample load from 33 s to 22 s on 2 cores.
 */
export const DEFAULT_IMPORT_JOBS = 2;

/**
 * Imports a verl rollout dump directory (`trainer.rollout_data_dir`) into a run: each `{step}.jsonl` from where
 * the last import stopped. Malformed lines are reported through `onProblem` and skipped, never aborting.
 */
export async function importDump(client: SqlClient, options: ImportDumpOptions): Promise<ImportSummary> {
  const directory = await listDumpFiles(options.dir);
  const run = await ensureRun(client, options.dir, options.name);
  const { rows } = await client.query<{ name: string; bytes_read: string }>(
    'SELECT "name", "bytes_read" FROM "rollout_file" WHERE "run_id" = $1',
    [run.id],
  );
  const done = new Map(rows.map((row) => [row.name, Number(row.bytes_read)]));
  const progress: ImportProgress = { bytesDone: 0, bytesTotal: 0, samples: 0 };
  for (const file of directory.files)
    progress.bytesTotal += Math.max(0, file.size - (done.get(file.name) ?? 0));
  options.onProgress?.(progress);

  const summary: ImportSummary = {
    run,
    files: directory.files.length,
    added: 0,
    rejected: 0,
    skipped: [...directory.skipped],
  };
  const importFile = async (session: SqlClient, file: DumpFile) => {
    const result = await importDumpFile(session, run.id, file, {
      final: options.quietMs === undefined || Date.now() - file.modifiedAt > options.quietMs,
      onProblem: (problem) => options.onProblem?.(problem),
      onBytes: (bytes) => {
        progress.bytesDone += bytes;
        options.onProgress?.(progress);
      },
    });
    progress.samples += result.added;
    options.onProgress?.(progress);
    summary.added += result.added;
    summary.rejected += result.rejected;
    if (result.note) notes.set(file, result.note);
    if (result.added > 0 || result.rejected > 0 || result.note) options.onFile?.(file, result);
  };
  // Files finish in any order when several go at once; their notes are listed in step order all the same.
  const notes = new Map<DumpFile, string>();
  const pending = directory.files.filter((file) => file.size !== done.get(file.name));
  const sessions = { jobs: options.jobs ?? DEFAULT_IMPORT_JOBS, openSession: options.openSession };
  await eachInSessions(client, sessions, pending, importFile);
  for (const file of pending) {
    const reason = notes.get(file);
    if (reason) summary.skipped.push({ name: file.name, reason });
  }
  // Fresh planner statistics, so search and filters pick the right index from the first query on (autovacuum
  // would get there, but only after a while).
  if (summary.added > 0) {
    await client.query('ANALYZE "rollout_sample" ("run_id", "step", "score")');
    await client.query('ANALYZE "rollout_term" ("run_id", "term", "step")');
  }
  return summary;
}
