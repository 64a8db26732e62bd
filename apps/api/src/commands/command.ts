import type { ParseArgsConfig } from 'node:util';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Raised for a command line the CLI cannot use; it prints the command's usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** One `fusebox …` sub-command. Its options are parsed strictly: unknown flags are usage errors. */
export interface Command {
  /** The words that name it, e.g. ['db', 'migrate']. */
  path: string[];
  summary: string;
  /** Positional arguments, e.g. 'DIR', shown in the usage line. */
  args?: string;
  /** Lines describing each option, shown by --help. */
  help: string[];
  options: Options;
  /** Returns the process exit code. */
  run(
    values: Record<string, string | boolean | (string | boolean)[] | undefined>,
    positionals: string[],
  ): Promise<number>;
}
