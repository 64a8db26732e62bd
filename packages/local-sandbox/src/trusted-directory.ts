import { lstatSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ownDirectory } from './own-directory';

/**
 * `dir` is this user's own directory, and nobody but this user or root can rename or replace it or any directory
 * above it (a sticky directory such as /tmp lets others remove only their own names): what is in it was put
 * there by this user.
 */
export function trustedDirectory(dir: string): boolean {
  if (!ownDirectory(dir)) return false;
  // Up to the root: for a relative path (TMPDIR=tmp) the directories above the working one count too.
  for (let above = dirname(resolve(dir)); ; above = dirname(above)) {
    const stat = lstatSync(above);
    const owner = stat.uid === 0 || stat.uid === process.getuid?.();
    const othersMayRename = (stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0;
    if (!stat.isDirectory() || !owner || othersMayRename) return false;
    if (above === dirname(above)) return true;
  }
}
