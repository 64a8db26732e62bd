import type { Metadata } from 'next';
import { connection } from 'next/server';
import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { apiAddress } from '~/env';
import { ExecutionList } from '~/executions/execution-list';

export const metadata: Metadata = { title: 'Executions' };

export default async function ExecutionsPage() {
  // Rendered per request, so the API address is the running server's, not the build's.
  await connection();
  return (
    <>
      <h1>Executions</h1>
      <Suspense fallback={<Loading what="executions" />}>
        <ExecutionList api={apiAddress} />
      </Suspense>
    </>
  );
}
