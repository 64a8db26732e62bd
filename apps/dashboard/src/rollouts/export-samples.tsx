'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, sampleFilter, searchConditions } from './browser-params';
import { type ExportFormat as Format, serialise } from './export-format';
import type { ExportedSample } from './types';

/** One page of an export, as both the step's and the search's export procedures answer. */
interface ExportPage {
  items: ExportedSample[];
  nextCursor: number | null;
  /** Where the next part starts when this part ended at its cap with samples left (step exports only). */
  nextPart?: number | null;
  /** A search's matches went past the most it lists, which are all an export of it holds. */
  capped?: boolean;
  maxSamples: number;
}

/**
 * What an export holds: a step's samples under the current filters and sort, or, while a query is searched, its
 * matches across every step under the same filters, in step and line order.
 */
export type ExportSource = { kind: 'step'; step: number } | { kind: 'search' };

/**
 * Downloads the list as it stands, whole, as JSONL or CSV. One download holds at most what the server allows
 * (FUSEBOX_DASHBOARD_EXPORT_MAX_SAMPLES for a step, the search's own cap for a search), so the browser never
 * builds a file of a whole large step; when a step's list is longer the export says so and offers the next
 * part, which starts where this one stopped.
 */
export function ExportSamples({
  runId,
  source,
  params,
}: {
  runId: string;
  source: ExportSource;
  params: BrowserParams;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  /** Where the next part of a cut export starts, and the cap that cut it. */
  const [cut, setCut] = useState<{ next: number; max: number } | null>(null);
  /** The search export held the first `max` matches of more. */
  const [searchCut, setSearchCut] = useState<number | null>(null);
  const fetchPage = (start: number, cursor: number): Promise<ExportPage> => {
    if (source.kind === 'step') {
      return queryClient.fetchQuery({
        ...trpc.rolloutAnalysis.exportPage.queryOptions({
          runId,
          step: source.step,
          start,
          cursor,
          ...sampleFilter(params),
        }),
        staleTime: 0,
      });
    }
    return queryClient.fetchQuery({
      ...trpc.rollouts.exportSearch.queryOptions({ runId, q: params.q, cursor, ...searchConditions(params) }),
      staleTime: 0,
    });
  };
  const fileName = (format: Format, start: number) => {
    if (source.kind === 'search') return `search.${format}`;
    return start === 0 ? `step-${source.step}.${format}` : `step-${source.step}-from-${start + 1}.${format}`;
  };
  const download = async (format: Format, start: number) => {
    setBusy('exporting…');
    setCut(null);
    setSearchCut(null);
    try {
      const samples: ExportedSample[] = [];
      let cursor: number | null = start;
      let last: ExportPage | null = null;
      while (cursor !== null) {
        last = await fetchPage(start, cursor);
        samples.push(...last.items);
        cursor = last.nextCursor;
        setBusy(`exporting… ${samples.length}`);
      }
      const blob = new Blob([serialise(samples, format)], {
        type: format === 'csv' ? 'text/csv' : 'application/x-ndjson',
      });
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = fileName(format, start);
      link.click();
      URL.revokeObjectURL(link.href);
      setBusy(null);
      if (last?.nextPart != null) setCut({ next: last.nextPart, max: last.maxSamples });
      if (last?.capped) setSearchCut(last.maxSamples);
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
      {cut && source.kind === 'step' ? (
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
          ; the whole step is verl&apos;s own <code>{source.step}.jsonl</code> in its{' '}
          <code>rollout_data_dir</code>.
        </span>
      ) : null}
      {searchCut !== null ? (
        <span role="status" aria-label="export cut">
          {' '}
          Exported the first {searchCut} matches: a search lists at most {searchCut}. Narrow the query, or
          export a step&apos;s list with the search cleared.
        </span>
      ) : null}
    </span>
  );
}
