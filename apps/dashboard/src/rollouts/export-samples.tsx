'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, sampleFilter } from './browser-params';
import { type ExportFormat as Format, serialise } from './export-format';
import type { ExportedSample } from './types';

/** Downloads the step's samples under the current filters and sort, whole, as JSONL or CSV. */
export function ExportSamples({
  runId,
  step,
  params,
}: {
  runId: string;
  step: number;
  params: BrowserParams;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const download = async (format: Format) => {
    setBusy('exporting…');
    try {
      const samples: ExportedSample[] = [];
      let cursor: number | null = 0;
      while (cursor !== null) {
        const page: { items: ExportedSample[]; nextCursor: number | null } = await queryClient.fetchQuery({
          ...trpc.rolloutAnalysis.exportPage.queryOptions({ runId, step, cursor, ...sampleFilter(params) }),
          staleTime: 0,
        });
        samples.push(...page.items);
        cursor = page.nextCursor;
        setBusy(`exporting… ${samples.length}`);
      }
      const blob = new Blob([serialise(samples, format)], {
        type: format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = `step-${step}.${format}`;
      link.click();
      URL.revokeObjectURL(link.href);
      setBusy(null);
    } catch (error) {
      setBusy(`export failed: ${(error as Error).message}`);
    }
  };
  return (
    <span className="export" role="group" aria-label="export">
      export{' '}
      <button type="button" onClick={() => void download('jsonl')} disabled={busy?.startsWith('exporting')}>
        JSONL
      </button>{' '}
      <button type="button" onClick={() => void download('csv')} disabled={busy?.startsWith('exporting')}>
        CSV
      </button>
      {busy ? <span className="muted"> {busy}</span> : null}
    </span>
  );
}
