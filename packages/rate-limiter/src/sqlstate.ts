// The SQLSTATEs the limiter branches on (Postgres, Appendix A).

/** A missing table: neither the limiter nor Fusebox's migrations have run on this database. */
export const UNDEFINED_TABLE = '42P01';
/** A statement the role may not run (here: creating the limiter's table). */
export const INSUFFICIENT_PRIVILEGE = '42501';

/** The SQLSTATE of a failed query: the error's own code, or its cause's where the limiter wrapped it. */
export function sqlState(error: unknown): unknown {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : cause?.code;
}
