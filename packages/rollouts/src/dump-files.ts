import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RolloutImportError } from './rollout-import-error';

/** A `{step}.jsonl` file of a verl rollout dump directory. */
export interface DumpFile {
  name: string;
  step: number;
  path: string;
  size: number;
  /** Last modification, in ms since the epoch. */
  modifiedAt: number;
}

export interface DumpDirectory {
  /** Step files, by step. */
  files: DumpFile[];
  /** `.jsonl` files whose names are not a step number, each with why it was left out. */
  skipped: { name: string; reason: string }[];
}

const STEP_FILE = /^(\d+)\.jsonl$/;

/**
 * Lists a dump directory the way verl's trainer writes it: one `{step}.jsonl` per training step. Other
 * `.jsonl` names (verl's viewer crashes on them) are returned as skipped, with a reason to show. Rejects with
 * a plain message when the directory cannot be read.
 */
export async function listDumpFiles(dir: string): Promise<DumpDirectory> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such directory' : code === 'ENOTDIR' ? 'not a directory' : code;
    throw new RolloutImportError(`cannot read ${dir}: ${why ?? (error as Error).message}`, { cause: error });
  }
  const files: DumpFile[] = [];
  const skipped: DumpDirectory['skipped'] = [];
  for (const name of names.sort()) {
    if (!name.endsWith('.jsonl')) continue;
    const match = STEP_FILE.exec(name);
    if (!match?.[1] || !Number.isSafeInteger(Number(match[1])) || Number(match[1]) > 2_147_483_647) {
      skipped.push({ name, reason: 'the name is not a step number ({step}.jsonl)' });
      continue;
    }
    const info = await stat(join(dir, name)).catch(() => null);
    if (!info?.isFile()) {
      skipped.push({ name, reason: 'not a regular file' });
      continue;
    }
    files.push({
      name,
      step: Number(match[1]),
      path: join(dir, name),
      size: info.size,
      modifiedAt: info.mtimeMs,
    });
  }
  files.sort((a, b) => a.step - b.step || a.name.localeCompare(b.name));
  // `1.jsonl` and `01.jsonl` would both be step 1; the first keeps it.
  const unique = files.filter((file, index) => index === 0 || files[index - 1]!.step !== file.step);
  for (const file of files)
    if (!unique.includes(file))
      skipped.push({ name: file.name, reason: `another file is already step ${file.step}` });
  return { files: unique, skipped };
}
