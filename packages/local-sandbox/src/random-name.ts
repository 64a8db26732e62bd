import { randomBytes } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789_';

/**
 * A name like Python's `tempfile` makes (`tmpk3j_x9qa`), so paths in tracebacks look the way they do on a
 * SandboxFusion server.
 */
export function randomName(prefix = 'tmp', length = 8): string {
  const bytes = randomBytes(length);
  let name = prefix;
  for (const byte of bytes) name += ALPHABET[byte % ALPHABET.length];
  return name;
}
