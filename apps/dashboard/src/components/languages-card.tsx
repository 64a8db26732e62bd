'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '~/trpc/client';

/**
 * Every SandboxFusion language as this server runs it: the toolchain's version, or why it cannot run here and
 * the command that installs it (what GET /v1/languages answers).
 */
export function LanguagesCard() {
  const trpc = useTRPC();
  const languages = useQuery(trpc.languages.list.queryOptions());

  if (languages.isPending)
    return (
      <section className="card wide" aria-busy="true">
        Asking each toolchain its version…
      </section>
    );
  if (languages.isError)
    return (
      <section className="card error" role="alert">
        <h2>Languages</h2>
        <p>{languages.error.message}</p>
      </section>
    );
  const available = languages.data.filter((row) => row.available).length;
  return (
    <section className="card wide" aria-label="Languages">
      <h2>
        Languages{' '}
        <span className="muted">
          {available} of {languages.data.length} run here
        </span>
      </h2>
      <table className="table" aria-label="languages">
        <thead>
          <tr>
            <th>language</th>
            <th>toolchain, or why not</th>
            <th>libraries</th>
          </tr>
        </thead>
        <tbody>
          {languages.data.map((row) => (
            <tr key={row.language}>
              <td>
                <code>{row.language}</code>{' '}
                <span className={`badge ${row.available ? 'ok' : 'muted'}`}>
                  {row.available ? 'available' : 'unavailable'}
                </span>
              </td>
              <td>{row.available ? (row.version ?? 'installed') : row.reason}</td>
              <td>{row.libraries ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
