import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownDirectory } from './own-directory';
import { ownerGone } from './process-owner';

/**
 * Removes the temporary directories of executors whose process died without cleaning up. A name in /tmp says
 * nothing of who made it, so only directories of this user's that nobody else may write are removed. They are
 * removed with coreutils' `rm`, which walks by open directory handles and never through a link: node's recursive
 * rm reads a directory by its path after checking it, so a sandbox uid that owns a directory inside could swap it
 * for a link in between and have root delete what the link points at.
 */
export function removeOrphanDirectories(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!ownerGone(name, 'fusebox-sandbox-') && !ownerGone(name, 'fusebox-run-')) continue;
    const path = join(tmpdir(), name);
    if (!ownDirectory(path)) continue;
    try {
      execFileSync('rm', ['-rf', '--one-file-system', '--', path], { stdio: 'pipe' });
    } catch {
      // Something inside is busy or another file system: what is left stays until a later start.
    }
  }
}
