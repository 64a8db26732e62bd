import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { SessionList } from '~/sessions/session-list';

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
