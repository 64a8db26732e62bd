'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '~/trpc/client';
import { type BrowserParams, sampleFilter } from './browser-params';
import type { ExportedSample } from './types';

type Format = 'jsonl' | 'csv';

/** A CSV field, quoted when it must be (RFC 4180: quotes doubled). */
function csvField(value: unknown): string {
  const text =
    value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * JSONL keeps verl's own line shape (extras back at the top level), so an export can be imported again; CSV has
 * one column per extra field the exported samples carry.
 */
function serialise(samples: ExportedSample[], format: Format): string {
  if (format === 'jsonl') {
    return samples.map(({ extras, ...sample }) => `${JSON.stringify({ ...sample, ...extras })}\n`).join('');
  }
  const extraNames = [...new Set(samples.flatMap((sample) => Object.keys(sample.extras)))];
  const header = ['step', 'line', 'request_id', 'score', 'gts', ...extraNames, 'input', 'output'];
  const rows = samples.map((sample) =>
    [
      sample.step,
      sample.line,
      sample.request_id,
      sample.score,
      sample.gts,
      ...extraNames.map((name) => sample.extras[name]),
      sample.input,
      sample.output,
    ]
      .map(csvField)
      .join(','),
  );
  return `${[header.join(','), ...rows].join('\r\n')}\r\n`;
}

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
