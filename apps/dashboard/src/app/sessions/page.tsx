import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { SessionList } from '~/sessions/session-list';

export const metadata: Metadata = { title: 'Sessions' };

export default function SessionsPage() {
  return (
    <>
      <h1>Sessions</h1>
      <Suspense fallback={<Loading what="sessions" />}>
        <SessionList />
      </Suspense>
    </>
  );
}
