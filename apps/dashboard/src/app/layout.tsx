import type { Metadata } from 'next';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { TrpcReactProvider } from '~/trpc/client';
import './globals.css';

export const metadata: Metadata = {
  title: 'Fusebox',
  description: 'Live load, executions, sessions and rollouts of your RL training.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        {/* No link prefetches, here or in the lists: every page is live data, so a prefetched render is stale
            by the click, and each one is a server render with its API queries (a list would fire one per row in
            view), competing with the current page's own requests. */}
        <header className="topbar">
          <Link prefetch={false} href="/" className="brand">
            Fusebox
          </Link>
          <nav>
            <Link prefetch={false} href="/">
              Overview
            </Link>
            <Link prefetch={false} href="/executions">
              Executions
            </Link>
            <Link prefetch={false} href="/sessions">
              Sessions
            </Link>
            <Link prefetch={false} href="/rollouts">
              Rollouts
            </Link>
          </nav>
        </header>
        <main>
          <TrpcReactProvider>{children}</TrpcReactProvider>
        </main>
      </body>
    </html>
  );
}
