'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '~/trpc/client';

/** The API's health, refreshed every few seconds, with a clear state when the API cannot be reached. */
export function HealthCard() {
  const trpc = useTRPC();
  const health = useQuery({ ...trpc.health.get.queryOptions(), refetchInterval: 5_000 });

  if (health.isPending)
    return (
      <section className="card" aria-busy="true">
        Checking the API…
      </section>
    );
  if (health.isError) {
    return (
      <section className="card error" role="alert">
        <h2>API unreachable</h2>
        <p>{health.error.message}</p>
        <p>
          Is <code>fusebox serve</code> running?
        </p>
      </section>
    );
  }
  const { status, version, uptimeSeconds, database } = health.data;
  return (
    <section className="card" aria-label="API health">
      <h2>
        API <span className={`badge ${status}`}>{status}</span>
      </h2>
      <dl>
        <dt>Version</dt>
        <dd>{version}</dd>
        <dt>Uptime</dt>
        <dd>{uptimeSeconds} s</dd>
        <dt>Database</dt>
        <dd>
          <span className={`badge ${database.status}`}>{database.status}</span>{' '}
          {database.status === 'ok' ? `${database.latencyMs} ms` : database.error}
        </dd>
        <dt>Database URL</dt>
        <dd>
          <code>{database.url}</code>
        </dd>
      </dl>
    </section>
  );
}
