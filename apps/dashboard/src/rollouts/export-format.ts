import type { ExportedSample } from './types';

export type ExportFormat = 'jsonl' | 'csv';

/**
 * Text a spreadsheet would run as a formula: the model writes the samples, and a response that starts with
 * `=HYPERLINK(…)` must not become a live formula for whoever opens the export (OWASP's CSV injection).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A CSV field, quoted when it must be (RFC 4180: quotes doubled); text that reads as a formula gets a `'`. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * JSONL keeps verl's own line shape (extras back at the top level), so an export can be imported again; CSV has
 * one column per extra field the exported samples carry.
 */
export function serialise(samples: ExportedSample[], format: ExportFormat): string {
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
  // Extra fields are named by the dump, so their names are defused and quoted as the values are.
  return `${[header.map(csvField).join(','), ...rows].join('\r\n')}\r\n`;
}
