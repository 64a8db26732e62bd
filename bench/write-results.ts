import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

/**
 * Writes a bench's RESULTS.md formatted as the repository's format check expects, so that committing a run
 * needs no extra step (a raw markdown table fails `npm test`'s format step).
 */
export async function writeResults(file: URL | string, markdown: string): Promise<void> {
  const path = typeof file === 'string' ? file : fileURLToPath(file);
  await writeFile(path, await format(markdown, { ...(await resolveConfig(path)), filepath: path }));
}

/** A markdown table (writeResults aligns its columns). */
export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.map(String).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
