/** Codes of this package's errors, for guards that must work across copies of the package. */
export const RETRIEVAL_ERROR_CODES = [
  'FUSEBOX_RETRIEVAL_CORPUS_IMPORT',
  'FUSEBOX_RETRIEVAL_UNKNOWN_CORPUS',
  'FUSEBOX_RETRIEVAL_CORPUS_CHOICE',
] as const;

export type RetrievalErrorCode = (typeof RETRIEVAL_ERROR_CODES)[number];

/** The base of this package's errors: a message for the person or client at fault, and a stable code. */
export abstract class RetrievalError extends Error {
  abstract readonly code: RetrievalErrorCode;
}

export function isRetrievalError(error: unknown): error is RetrievalError {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && (RETRIEVAL_ERROR_CODES as readonly unknown[]).includes(code);
}
