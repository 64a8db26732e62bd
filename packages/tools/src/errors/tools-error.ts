/** The stable `code` of every error this package throws. */
export const TOOLS_ERROR_CODES = [
  'FUSEBOX_TOOLS_CONFIG',
  'FUSEBOX_TOOLS_GENERATE',
  'FUSEBOX_TOOLS_UNKNOWN_INSTANCE',
] as const;

export type ToolsErrorCode = (typeof TOOLS_ERROR_CODES)[number];

/**
 * Base class of every error @fusebox/tools throws. `code` is stable across versions, so callers can branch on
 * it; `isToolsError` works across duplicate copies of this package, where `instanceof` would not.
 *
 * @example
 * try {
 *   await tool.release(id);
 * } catch (error) {
 *   if (isToolsError(error) && error.code === 'FUSEBOX_TOOLS_UNKNOWN_INSTANCE') console.warn(error.message);
 * }
 */
export class ToolsError extends Error {
  readonly code: ToolsErrorCode;

  constructor(code: ToolsErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * True for any error thrown by @fusebox/tools, whichever copy of the package threw it.
 *
 * @example
 * if (isToolsError(error)) console.error(error.code);
 */
export function isToolsError(error: unknown): error is ToolsError {
  const code: unknown = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return (TOOLS_ERROR_CODES as readonly unknown[]).includes(code);
}
