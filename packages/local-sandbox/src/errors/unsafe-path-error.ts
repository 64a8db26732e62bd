import { LocalSandboxError } from './local-sandbox-error';

/**
 * A path in `files` is absolute, escapes the working directory or is otherwise unusable; nothing was written.
 *
 * @example
 * if (error instanceof UnsafePathError) console.error(`refused ${error.path}`);
 */
export class UnsafePathError extends LocalSandboxError {
  readonly path: string;

  constructor(path: string, reason: string) {
    super('FUSEBOX_LOCAL_SANDBOX_UNSAFE_PATH', `refused file path ${JSON.stringify(path)}: ${reason}`);
    this.path = path;
  }
}
