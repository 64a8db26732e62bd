import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
} from '@prisma/driver-adapter-utils';
import { PrismaClient } from '../generated/prisma/client';
import { LOCAL_QUERY_PATH, LOCAL_TOKEN_HEADER, decodeValues, encodeValues } from './local-protocol';
import { findHoldingServer } from './server-record';

const ADAPTER_NAME = '@fusebox/db/held-database';

/**
 * A read-only Prisma client on an embedded database that a running `fusebox serve` holds (no other process can
 * open it): each query goes to that server, found through the data directory at the time of the query, and runs
 * on its session inside a read-only transaction. Writes are refused. This is how `fusebox demo` reads what the
 * server recorded, and how tests look at a server's data while it runs. `apiToken` is the server's
 * FUSEBOX_API_TOKEN, when it has one.
 *
 * @example
 * const prisma = createHeldPrismaClient('.fusebox');
 * console.log(await prisma.execution.count());
 */
export function createHeldPrismaClient(dataDir: string, options: { apiToken?: string } = {}): PrismaClient {
  const adapter: SqlDriverAdapter = {
    provider: 'postgres',
    adapterName: ADAPTER_NAME,
    queryRaw: (query) => queryThroughServer(dataDir, query, options.apiToken),
    executeRaw: () => Promise.reject(readOnly()),
    executeScript: () => Promise.reject(readOnly()),
    startTransaction: () => Promise.reject(readOnly()),
    dispose: () => Promise.resolve(),
  };
  const factory: SqlDriverAdapterFactory = {
    provider: 'postgres',
    adapterName: ADAPTER_NAME,
    connect: () => Promise.resolve(adapter),
  };
  return new PrismaClient({ adapter: factory });
}

async function queryThroughServer(
  dataDir: string,
  query: SqlQuery,
  apiToken: string | undefined,
): Promise<SqlResultSet> {
  const server = await findHoldingServer(dataDir);
  if (!server) {
    throw new Error(`no running Fusebox server holds ${dataDir}; open the database directly instead`);
  }
  const response = await fetch(`${server.url}${LOCAL_QUERY_PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [LOCAL_TOKEN_HEADER]: server.token,
      ...(apiToken ? { authorization: `Bearer ${apiToken}` } : {}),
    },
    body: JSON.stringify(query, encodeValues),
  });
  const text = await response.text();
  if (!response.ok) {
    const detail = (JSON.parse(text) as { detail?: string }).detail ?? text;
    throw new Error(`the Fusebox server at ${server.url} could not run the query: ${detail}`);
  }
  return JSON.parse(text, decodeValues) as SqlResultSet;
}

function readOnly(): Error {
  return new Error('a client of a database held by a running server can only read');
}
