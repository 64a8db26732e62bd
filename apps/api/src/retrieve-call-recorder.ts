import type { PrismaClient } from '@fusebox/db/client';
import { isDatabaseUnavailable } from '@fusebox/db/database-unavailable';
import { GroupCommit } from '@fusebox/db/group-commit';
import { storableJson, storableText } from '@fusebox/db/storable';
import type { CorpusSearch } from '@fusebox/retrieval';

/** One /retrieve call as `retrieval_call` keeps it. */
export interface RetrieveCall {
  corpusName: string;
  corpusId: string | undefined;
  body: { queries: string[]; topk: number } | undefined;
  search: CorpusSearch | undefined;
  /** A refused call's status and message; undefined for one answered 200. */
  refusal: { status: number; message: string } | undefined;
  durationMs: number;
}

/**
 * Records /retrieve calls in `retrieval_call`, durably but off the answer's path: a search only reads, so its
 * answer need not wait for its record's commit (which cost half of a search's time,
 * bench/retrieval/SEARCH-PATH.md). `record` resolves at once while fewer than `buffer` records are waiting for
 * their commit, and the caller answers; their commits are grouped (calls that finish while one insert is in
 * flight share the next). Past `buffer` (a database slower than the searches), or with `buffer` 0, `record`
 * resolves only once the call is committed, so the server never holds more than `buffer` records in memory
 * and never drops one for want of room. `settled()`, awaited when the server closes, writes what is left.
 *
 * What can be lost (docs/failure-modes.md): the records still in memory when the process is killed without
 * closing (SIGKILL, a crash, the machine's power), at most `buffer` and in practice those of the last few
 * milliseconds; and the records whose commit fails after their answer (the database went away), each logged.
 * After such a failure, calls are recorded before their answers again (a database that cannot take the record
 * makes the call a 503, as it did before) until a commit succeeds.
 */
export class RetrieveCallRecorder {
  readonly #inserts: GroupCommit<RetrieveCall, undefined>;
  readonly #buffer: number;
  readonly #onLost: (error: unknown) => void;
  #waiting = 0;
  /** False since a commit failed, until one succeeds: meanwhile every call waits for its own record. */
  #committing = true;

  constructor(prisma: PrismaClient, options: { buffer: number; onLost: (error: unknown) => void }) {
    this.#buffer = options.buffer;
    this.#onLost = options.onLost;
    this.#inserts = new GroupCommit(
      async (calls) => {
        try {
          await prisma.retrievalCall.createMany({ data: calls.map(callRow) });
        } catch (error) {
          if (isDatabaseUnavailable(error)) this.#committing = false;
          throw error;
        }
        this.#committing = true;
        return calls.map(() => undefined);
      },
      { failsEveryItem: isDatabaseUnavailable },
    );
  }

  /** Records waiting for their commit after their calls were answered. */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Records `call`. Resolves when the call may be answered: at once while the buffer has room, else once the
   * record is committed (rejecting with the database's error if it cannot be).
   */
  async record(call: RetrieveCall): Promise<void> {
    if (this.#waiting >= this.#buffer || !this.#committing) return this.#inserts.submit(call);
    this.#waiting += 1;
    void this.#inserts
      .submit(call)
      .catch(this.#onLost)
      .finally(() => (this.#waiting -= 1));
  }

  /** Resolves once every call recorded so far is committed or has failed. */
  settled(): Promise<void> {
    return this.#inserts.settled();
  }
}

function callRow(call: RetrieveCall) {
  return {
    corpusName: call.corpusName,
    corpusId: call.corpusId ?? null,
    queries: storableJson(call.body?.queries ?? []),
    topk: call.body?.topk ?? 0,
    status: call.refusal?.status ?? 200,
    error: call.refusal ? storableText(call.refusal.message) : null,
    ...(call.search
      ? {
          results: call.search.results.map((documents) => documents.map(({ id, score }) => ({ id, score }))),
        }
      : {}),
    durationMs: call.durationMs,
  };
}
