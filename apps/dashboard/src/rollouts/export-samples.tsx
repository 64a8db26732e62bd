'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, sampleFilter } from './browser-params';
import { type ExportFormat as Format, serialise } from './export-format';
import type { ExportedSample } from './types';

/**
 * Downloads the step's samples under the current filters and sort, whole, as JSONL or CSV. One download holds at
 * most what the server allows (FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES), so the browser never builds a file of a
 * whole large step; when the list is longer the export says so and offers the next part, which starts where
 * this one stopped.
 */
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
  /** Where the next part of a cut export starts, and the cap that cut it. */
  const [cut, setCut] = useState<{ next: number; max: number } | null>(null);
  const download = async (format: Format, start: number) => {
    setBusy('exporting…');
    setCut(null);
    try {
      const samples: ExportedSample[] = [];
      let cursor: number | null = start;
      let nextPart: number | null = null;
      let max = 0;
      while (cursor !== null) {
        const page: {
          items: ExportedSample[];
          nextCursor: number | null;
          nextPart: number | null;
          maxSamples: number;
        } = await queryClient.fetchQuery({
          ...trpc.rolloutAnalysis.exportPage.queryOptions({
            runId,
            step,
            start,
            cursor,
            ...sampleFilter(params),
          }),
          staleTime: 0,
        });
        samples.push(...page.items);
        cursor = page.nextCursor;
        nextPart = page.nextPart;
        max = page.maxSamples;
        setBusy(`exporting… ${samples.length}`);
      }
      const blob = new Blob([serialise(samples, format)], {
        type: format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = start === 0 ? `step-${step}.${format}` : `step-${step}-from-${start + 1}.${format}`;
      link.click();
      URL.revokeObjectURL(link.href);
      setBusy(null);
      if (nextPart !== null) setCut({ next: nextPart, max });
    } catch (error) {
      setBusy(`export failed: ${(error as Error).message}`);
    }
  };
  return (
    <span className="export" role="group" aria-label="export">
      export{' '}
      <button
        type="button"
        onClick={() => void download('jsonl', 0)}
        disabled={busy?.startsWith('exporting')}
      >
        JSONL
      </button>{' '}
      <button type="button" onClick={() => void download('csv', 0)} disabled={busy?.startsWith('exporting')}>
        CSV
      </button>
      {busy ? <span className="muted"> {busy}</span> : null}
      {cut ? (
        <span role="status" aria-label="export cut">
          {' '}
          Exported samples {cut.next - cut.max + 1}–{cut.next} of this list: one export holds at most{' '}
          {cut.max} (FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES). Next part:{' '}
          <button type="button" onClick={() => void download('jsonl', cut.next)}>
            JSONL from {cut.next + 1}
          </button>{' '}
          <button type="button" onClick={() => void download('csv', cut.next)}>
            CSV from {cut.next + 1}
          </button>
          ; the whole step is verl&apos;s own <code>{step}.jsonl</code> in its <code>rollout_data_dir</code>.
        </span>
      ) : null}
    </span>
  );
}
