import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { RetrievalCalls } from '~/retrieval/retrieval-calls';

export const metadata: Metadata = { title: 'Retrieval' };

export default function RetrievalPage() {
  return (
    <>
      <h1>Retrieval</h1>
      <Suspense fallback={<Loading what="retrieve calls" />}>
        <RetrievalCalls />
      </Suspense>
    </>
  );
}
