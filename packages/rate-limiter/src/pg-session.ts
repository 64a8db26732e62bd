import { LimiterUnavailableError } from './errors/limiter-unavailable-error';
import { type SessionPurpose, sessionSetupSql } from './limiter-sql';
import { CONNECT_TIMEOUT_MS, type LimiterConnection } from './pg-connection';

/** Prefix of `application_name` on the limiter's sessions; stats strip it to show the holder's name. */
export const APPLICATION_NAME_PREFIX = 'fusebox-limiter ';

/** Postgres caps application_name at 63 bytes. */
const APPLICATION_NAME_MAX_BYTES = 63;

/**
 * One dedicated Postgres session. Its locks live as long as it does, so its death is the loss of whatever it
 * held: `watch` reports that death once, to whoever holds a permit on it.
 */
export class PgSession {
  readonly #connection: LimiterConnection;
  #alive = true;
  #onLost: ((cause: Error) => void) | undefined;

  private constructor(connection: LimiterConnection) {
    this.#connection = connection;
    connection.on('error', (error) => this.#die(error));
    connection.on('end', () => this.#die(new Error('the connection to Postgres ended')));
  }

  /**
   * Connects through `connect` and prepares the session (sessionSetupSql), or throws LimiterUnavailableError;
   * the set-up gets `timeoutMs` to answer.
   */
  static async open(
    key: string,
    connect: () => Promise<LimiterConnection>,
    holderName: string,
    timeoutMs: number,
    purpose: SessionPurpose = 'acquire',
  ): Promise<PgSession> {
    let timer: NodeJS.Timeout | undefined;
    const connecting = connect();
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)),
        CONNECT_TIMEOUT_MS,
      );
    });
    let connection: LimiterConnection;
    try {
      connection = await Promise.race([connecting, timedOut]);
    } catch (error) {
      // A factory that answers after the deadline must not leak its connection.
      connecting.then((late) => late.end()).catch(() => {});
      throw new LimiterUnavailableError(key, describe(error), { cause: error });
    } finally {
      clearTimeout(timer);
    }
    const session = new PgSession(connection);
    try {
      await session.query({ text: sessionSetupSql(applicationName(holderName), purpose) }, [], timeoutMs);
    } catch (error) {
      await session.end();
      throw new LimiterUnavailableError(key, describe(error), { cause: error });
    }
    return session;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /**
   * Runs one statement. With a finite `timeoutMs`, a database that has not answered by then (frozen, or cut off
   * without a reset) counts as dead: the session is given up, its locks with it, and the query rejects.
   */
  async query<Row>(
    config: { name?: string; text: string },
    values: unknown[],
    timeoutMs = Infinity,
  ): Promise<Row[]> {
    const running = this.#connection.query({ ...config, values });
    if (!Number.isFinite(timeoutMs)) return (await running).rows as Row[];
    // Once given up, the query still rejects when the session ends; nobody is waiting for it by then.
    running.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`Postgres did not answer within ${timeoutMs} ms`);
        this.#die(error);
        void this.end();
        reject(error);
      }, timeoutMs);
    });
    try {
      return (await Promise.race([running, silence])).rows as Row[];
    } finally {
      clearTimeout(timer);
    }
  }

  /** Calls `onLost` if the session dies before `unwatch`. */
  watch(onLost: (cause: Error) => void): void {
    this.#onLost = onLost;
  }

  unwatch(): void {
    this.#onLost = undefined;
  }

  /**
   * Ends the session; Postgres frees its locks. A query still running rejects. Never rejects itself, but on a
   * frozen server it resolves only once the server reads the goodbye: callers that must not wait do not await it.
   */
  async end(): Promise<void> {
    this.#alive = false;
    await this.#connection.end().catch(() => {});
  }

  #die(cause: Error): void {
    this.#alive = false;
    const onLost = this.#onLost;
    this.#onLost = undefined;
    onLost?.(cause);
  }
}

/** The error's own words, for a LimiterUnavailableError message. */
export function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  return error instanceof Error && error.message ? error.message : String(error);
}

function applicationName(holderName: string): string {
  let name = `${APPLICATION_NAME_PREFIX}${holderName}`;
  while (Buffer.byteLength(name) > APPLICATION_NAME_MAX_BYTES) name = name.slice(0, -1);
  return name;
}
