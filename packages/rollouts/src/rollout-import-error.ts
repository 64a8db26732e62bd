/** A rollout import that cannot go on, with a message for the person who ran it (no stack trace needed). */
export class RolloutImportError extends Error {
  readonly code = 'FUSEBOX_ROLLOUT_IMPORT';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RolloutImportError';
  }
}
