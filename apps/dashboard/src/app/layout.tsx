import type { Metadata } from 'next';
import { Link } from '~/components/link';
import type { ReactNode } from 'react';
import { TrpcReactProvider } from '~/trpc/client';
import './globals.css';

export const metadata: Metadata = {
  // Each page names itself, so a row of dashboard tabs can be told apart.
  title: { default: 'Fusebox', template: '%s · Fusebox' },
  description: 'Live load, executions, sessions and rollouts of your RL training.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="topbar">
          <Link href="/" className="brand">
            Fusebox
          </Link>
          <nav>
            <Link href="/">Overview</Link>
            <Link href="/executions">Executions</Link>
            <Link href="/sessions">Sessions</Link>
            <Link href="/rollouts">Rollouts</Link>
            <Link href="/retrieval">Retrieval</Link>
          </nav>
        </header>
        <main>
          <TrpcReactProvider>{children}</TrpcReactProvider>
        </main>
      </body>
    </html>
  );
}
