import { createHash } from 'node:crypto';
import { storableText } from '@fusebox/db/storable';
import { z } from 'zod';
import { responseMetrics, type ResponseMetrics } from './response-metrics';

/** One sample as the importer stores it. */
export interface SampleRow extends ResponseMetrics {
  /** 1-based line number in its step file. */
  line: number;
  requestId: string | null;
  input: string;
  output: string;
  gts: unknown;
  score: number | null;
  extras: Record<string, unknown>;
  promptHash: string;
}

export type ParsedLine = { ok: true; row: SampleRow } | { ok: false; problem: string };

/** verl's dump line: `input`, `output`, `gts`, `score`, `step`, then any reward extras (acc, pred, request_id). */
const dumpLineSchema = z.looseObject({
  input: z.string({ error: '"input" must be a string' }),
  output: z.string({ error: '"output" must be a string' }),
  score: z
    .union([z.number(), z.boolean()], { error: '"score" must be a number' })
    .nullish()
    .transform((score) => (typeof score === 'boolean' ? Number(score) : (score ?? null))),
  gts: z.unknown().optional(),
  step: z.unknown().optional(),
  request_id: z
    .union([z.string(), z.number()], { error: '"request_id" must be a string' })
    .nullish()
    .transform((id) => (id === null || id === undefined ? null : String(id))),
});

const KNOWN_KEYS = new Set(['input', 'output', 'score', 'gts', 'step', 'request_id']);

/** Python's json.dumps writes NaN and ±Infinity for such floats (verl's scores can be NaN); JSON has neither. */
const PYTHON_NON_FINITE = /([:[,]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g;

/**
 * Parses one line of a verl `{step}.jsonl` dump. A line that is not a JSON object with string `input` and
 * `output` comes back with the problem, worded for a `file:line: problem` report.
 */
export function parseDumpLine(text: string, line: number): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const repaired = text.replace(PYTHON_NON_FINITE, '$1null');
    try {
      if (repaired === text) throw error;
      value = JSON.parse(repaired);
    } catch {
      return { ok: false, problem: `not valid JSON (${(error as Error).message})` };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, problem: 'not a JSON object' };
  const parsed = dumpLineSchema.safeParse(value);
  if (!parsed.success)
    return { ok: false, problem: parsed.error.issues.map((issue) => issue.message).join('; ') };
  const { input, output, score, gts, request_id: requestId } = parsed.data;
  const extras: Record<string, unknown> = {};
  for (const [key, extra] of Object.entries(value)) if (!KNOWN_KEYS.has(key)) extras[key] = extra;
  const response = storableText(output);
  return {
    ok: true,
    row: {
      line,
      requestId,
      input: storableText(input),
      output: response,
      ...responseMetrics(response),
      gts: gts ?? null,
      score,
      extras,
      promptHash: createHash('sha1').update(input).digest('hex').slice(0, 16),
    },
  };
}
