import { lstatSync } from 'node:fs';

/**
 * A directory itself (not a link to one), owned by this process's user, that no other user may write in: on
 * shared ground such as /tmp, only such a directory holds nothing another user put there, so only it may be
 * walked, unmounted or removed by a cleanup that runs as root.
 */
export function ownDirectory(path: string): boolean {
  const stat = lstatSync(path);
  return stat.isDirectory() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}
