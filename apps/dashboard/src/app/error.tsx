'use client';

import { Link } from '~/components/link';
import { ProblemCard } from '~/components/query-state';

/**
 * What a page shows when rendering it threw (a sample the chat parser chokes on, a bug): the error in words and
 * a way on, inside the dashboard's frame, instead of Next's blank client-exception screen.
 */
export default function PageError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <ProblemCard error={{ message: error.message || 'the page failed to render' }} what="This page">
      <p>
        <button type="button" onClick={reset}>
          Try again
        </button>{' '}
        or go back to the <Link href="/">overview</Link>.
      </p>
    </ProblemCard>
  );
}
