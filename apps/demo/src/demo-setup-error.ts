/**
 * The demo cannot start: no server at the address, a token missing, the server on another database. The message
 * says what to do; the CLI prints it and exits 1.
 */
export class DemoSetupError extends Error {
  readonly code = 'FUSEBOX_DEMO_SETUP';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DemoSetupError';
  }
}
