/** Why `fusebox db export` or `fusebox db import` stopped, with a stable code and a message for the user. */
export class DataTransferError extends Error {
  readonly code:
    | 'FUSEBOX_TRANSFER_FILE_EXISTS'
    | 'FUSEBOX_TRANSFER_NO_FILE'
    | 'FUSEBOX_TRANSFER_NOT_AN_EXPORT'
    | 'FUSEBOX_TRANSFER_NEWER_VERSION'
    | 'FUSEBOX_TRANSFER_TRUNCATED'
    | 'FUSEBOX_TRANSFER_SCHEMA'
    | 'FUSEBOX_TRANSFER_CONFLICT';

  constructor(code: DataTransferError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataTransferError';
    this.code = code;
  }
}
