import { Suspense } from 'react';
import { Loading } from '~/components/query-state';
import { ExecutionList } from '~/executions/execution-list';

export default function ExecutionsPage() {
  return (
    <>
      <h1>Executions</h1>
      <Suspense fallback={<Loading what="executions" />}>
        <ExecutionList />
      </Suspense>
    </>
  );
}
