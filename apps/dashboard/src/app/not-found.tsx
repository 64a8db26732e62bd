import type { Metadata } from 'next';
import { Link } from '~/components/link';
import { EmptyState } from '~/components/query-state';

export const metadata: Metadata = { title: 'Page not found' };

/** Any URL the dashboard has no page for: said in its own frame, with the way to each page (HTTP 404). */
export default function NotFound() {
  return (
    <EmptyState title="Page not found">
      <p>
        The dashboard has no page at this address. Go to the <Link href="/">overview</Link>,{' '}
        <Link href="/executions">executions</Link>, <Link href="/sessions">sessions</Link>,{' '}
        <Link href="/rollouts">rollouts</Link> or <Link href="/retrieval">retrieval</Link>.
      </p>
    </EmptyState>
  );
}
