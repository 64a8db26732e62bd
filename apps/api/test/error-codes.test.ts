import { DATABASE_ERROR_CODES, isDatabaseError } from '@fusebox/db/errors';
import { LOCAL_SANDBOX_ERROR_CODES, isLocalSandboxError } from '@fusebox/local-sandbox/errors';
import { isLimiterError, LIMITER_ERROR_CODES } from '@fusebox/rate-limiter';
import { isRetrievalError, RETRIEVAL_ERROR_CODES } from '@fusebox/retrieval';
import { isSandboxClientError, SANDBOX_CLIENT_ERROR_CODES } from '@fusebox/sandbox-client';
import { isToolsError, TOOLS_ERROR_CODES } from '@fusebox/tools';
import { describe, expect, it } from 'vitest';
import { SESSION_API_ERROR_CODES, isSessionApiError } from '@fusebox/agent-sessions';

// Every guard recognises errors by their code, across copies of a package, so no code may belong to two packages.
const FAMILIES = {
  '@fusebox/db': { codes: DATABASE_ERROR_CODES, guard: isDatabaseError },
  '@fusebox/local-sandbox': { codes: LOCAL_SANDBOX_ERROR_CODES, guard: isLocalSandboxError },
  '@fusebox/rate-limiter': { codes: LIMITER_ERROR_CODES, guard: isLimiterError },
  '@fusebox/retrieval': { codes: RETRIEVAL_ERROR_CODES, guard: isRetrievalError },
  '@fusebox/sandbox-client': { codes: SANDBOX_CLIENT_ERROR_CODES, guard: isSandboxClientError },
  '@fusebox/tools': { codes: TOOLS_ERROR_CODES, guard: isToolsError },
  'session API': {
    codes: SESSION_API_ERROR_CODES,
    guard: (error: unknown) => isSessionApiError(Object.assign(error as Error, { status: 400 })),
  },
};

describe('error codes', () => {
  it('belong to one package each', () => {
    const owners = new Map<string, string[]>();
    for (const [family, { codes }] of Object.entries(FAMILIES)) {
      for (const code of codes) owners.set(code, [...(owners.get(code) ?? []), family]);
    }
    expect([...owners].filter(([, families]) => families.length > 1)).toEqual([]);
    expect(owners.size).toBeGreaterThan(20);
  });

  it("are recognised by their own package's guard and by no other", () => {
    for (const [family, { codes }] of Object.entries(FAMILIES)) {
      for (const code of codes) {
        const recognisedBy = Object.entries(FAMILIES)
          .filter(([, { guard }]) => guard(Object.assign(new Error(code), { code })))
          .map(([name]) => name);
        expect({ code, recognisedBy }).toEqual({ code, recognisedBy: [family] });
      }
    }
  });

  it('a code that merely shares a prefix is nobody’s', () => {
    const lookalikes = [
      'FUSEBOX_SANDBOX_SESSION_LIMIT',
      'FUSEBOX_DB_',
      'FUSEBOX_LIMITER_KEY',
      'FUSEBOX_TOOLS_X',
    ];
    for (const code of lookalikes) {
      const error = Object.assign(new Error(code), { code });
      expect(Object.values(FAMILIES).filter(({ guard }) => guard(error))).toEqual([]);
    }
  });
});
