import { z } from 'zod';
import { canonicalInstanceHash, deriveInstanceHash } from './instance-hash';
import { languageOfTag } from './language-tags';
import type { TaskRecordInput } from './task-record';

/** `test.asset` is a {filename: base64} object, or that object as a JSON string, as in SandboxFusion's own data. */
const assetSchema = z.union([
  z.record(z.string(), z.string()),
  z.string().transform((text, context) => {
    try {
      return z.record(z.string(), z.string()).parse(JSON.parse(text));
    } catch {
      context.addIssue({ code: 'custom', message: 'expected a JSON object of filename to base64 content' });
      return z.NEVER;
    }
  }),
]);

/**
 * A row of SandboxFusion's AutoEval dataset shape: the problem in `content`, test code appended to the model's
 * code (or put at its `#<INSERT>` marker), passing when the program exits 0.
 */
export const autoEvalRowSchema = z.object({
  id: z.union([z.string().min(1), z.number()]),
  content: z.string(),
  labels: z
    .object({
      programming_language: z.string().min(1),
      execution_language: z.string().min(1).optional(),
      context: z.string().optional(),
    })
    .catchall(z.json()),
  test: z.object({
    code: z.string(),
    asset: assetSchema.optional(),
  }),
  canonical_solution: z.json().optional(),
});

export type AutoEvalRow = z.output<typeof autoEvalRowSchema>;

/** Whether a parsed JSON line looks like an AutoEval row rather than a task in Fusebox's format. */
export function looksLikeAutoEvalRow(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && 'content' in value && 'labels' in value && 'test' in value
  );
}

/**
 * Maps an AutoEval row to a task with one fail-to-pass test named `test`. A numeric id is the instance_hash;
 * any other id is hashed (see {@link deriveInstanceHash}). `labels.context` is put before the question, as
 * SandboxFusion's prompt does; the labels and canonical solution are kept in the task's metadata.
 */
export function fromAutoEvalRow(row: AutoEvalRow): TaskRecordInput {
  const name = String(row.id);
  const label = row.labels.execution_language ?? row.labels.programming_language;
  // An unknown label is kept as is, so the task is rejected naming it.
  const language = languageOfTag(label) ?? label;
  return {
    id: canonicalInstanceHash(row.id) ?? deriveInstanceHash(name),
    name,
    source: 'autoeval',
    prompt: row.labels.context ? `${row.labels.context}\n\n${row.content}` : row.content,
    language: language as TaskRecordInput['language'],
    setupFiles: row.test.asset ?? {},
    tests: [{ name: 'test', kind: 'assert', code: row.test.code }],
    failToPass: ['test'],
    passToPass: [],
    sessionMode: language === 'python' ? 'stateful' : 'fresh',
    metadata: {
      extra: {
        labels: row.labels,
        ...(row.canonical_solution === undefined ? {} : { canonical_solution: row.canonical_solution }),
      },
    },
  };
}
