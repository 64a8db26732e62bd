import { describe, expect, it } from 'vitest';
import {
  isSandboxClientError,
  SANDBOX_CLIENT_ERROR_CODES,
  SandboxAbortedError,
  SandboxClientError,
  SandboxHttpError,
  SandboxInvalidResponseError,
  SandboxTimeoutError,
  SandboxUnavailableError,
} from '@fusebox/sandbox-client';

describe('errors', () => {
  const cause = new Error('socket hang up');
  const errors = [
    new SandboxHttpError('http://s/run_code', 422, '{"detail":[]}'),
    new SandboxTimeoutError('http://s/run_code', 1000),
    new SandboxUnavailableError('http://s/run_code', 5, cause),
    new SandboxInvalidResponseError('http://s/run_code', 200, 'oops', 'not JSON', cause),
    new SandboxAbortedError(),
  ];

  it('each has its own stable code, its class name, and the package base class', () => {
    expect(errors.map((error) => error.code)).toEqual([...SANDBOX_CLIENT_ERROR_CODES]);
    expect(errors.map((error) => error.name)).toEqual([
      'SandboxHttpError',
      'SandboxTimeoutError',
      'SandboxUnavailableError',
      'SandboxInvalidResponseError',
      'SandboxAbortedError',
    ]);
    expect(errors.every((error) => error instanceof SandboxClientError && isSandboxClientError(error))).toBe(
      true,
    );
  });

  it('forwards the cause', () => {
    expect(errors[2]?.cause).toBe(cause);
    expect(errors[3]?.cause).toBe(cause);
  });

  it('recognises errors from another copy of the package by code, and nothing else', () => {
    const fromOtherCopy = Object.assign(new Error('timed out'), { code: 'FUSEBOX_SANDBOX_TIMEOUT' });
    expect(isSandboxClientError(fromOtherCopy)).toBe(true);
    expect(isSandboxClientError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isSandboxClientError({ code: 'FUSEBOX_SANDBOX_TIMEOUT' })).toBe(false);
    expect(isSandboxClientError(new DOMException('aborted', 'AbortError'))).toBe(false);
  });
});
