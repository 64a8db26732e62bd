/** Quotes one word for POSIX sh, so the driver can `eval` a command line built from it unchanged. */
export function shellQuote(word: string): string {
  return /^[\w./=:+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Quotes every word of an argv for POSIX sh. */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
