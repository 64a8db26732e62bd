/**
 * A call to the Fusebox API that gave nothing usable: `status` is the HTTP status of a refusal, or null when no
 * answer came (the server is down, the address is wrong).
 */
export class FuseboxApiError extends Error {
  readonly code = 'FUSEBOX_DEMO_API';

  constructor(
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FuseboxApiError';
  }
}
