import { Prisma } from '@fusebox/db/prisma';

/** Samples per export page: whole texts travel, so pages are smaller than the list's. */
export const EXPORT_PAGE = 200;

/** A sample whole, as an export writes it: verl's own fields, with the extras kept apart until written. */
export interface ExportedSampleRow {
  step: number;
  line: number;
  request_id: string | null;
  input: string;
  output: string;
  gts: unknown;
  score: number | null;
  extras: Record<string, unknown>;
}

/** The columns of an ExportedSampleRow, from `rollout_sample` as `s`. */
export const EXPORTED_SAMPLE_COLUMNS = Prisma.sql`s."step", s."line", s."request_id", s."input", s."output",
  s."gts", s."score", s."extras"`;
