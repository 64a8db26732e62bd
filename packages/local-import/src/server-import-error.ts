/** The server that holds the embedded data directory could not run an import for a command (it answered no, or went away). */
export class ServerImportError extends Error {
  readonly code = 'FUSEBOX_SERVER_IMPORT';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ServerImportError';
  }
}
