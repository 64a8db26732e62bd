import type { PrismaClient } from '@fusebox/db/client';
import { z } from 'zod';

/** Executions listed per tool call: the likeliest first. */
const EXECUTIONS_PER_CALL = 5;
/** Executions of one code counted up to this many ("1000+"): common code runs in every sample of a prompt. */
const COUNT_CAP = 1000;
/** Candidates read per code, newest first, among which the one whose output the tool response shows is sought. */
const CANDIDATES_PER_CALL = 200;

/** A sample's `request_id` as the dump holds it: any text, though only an id Fusebox recorded can match. */
export const requestIdInput = z.string().max(200_000).nullable().default(null);

/** A tool call as the dashboard read it from a sample: its code, and the response the model got, if any. */
export const toolCallInput = z.object({
  code: z.string().min(1).max(200_000),
  response: z.string().max(200_000).nullable(),
});

export type ToolCallInput = z.infer<typeof toolCallInput>;

export interface ToolCallExecution {
  id: string;
  source: string;
  status: string;
  runStatus: string | null;
  returnCode: number | null;
  runMs: number | null;
  outputTruncated: boolean;
  requestedAt: Date;
  sessionId: string | null;
  /** Whether this run carries the sample's `request_id` (the header its rollout sent): the client's word, not proof. */
  sameRequest: boolean;
  /** Whether the tool response holds this execution's output: it is the run the model saw, not a twin. */
  outputMatches: boolean;
}

export interface ToolCallExecutions {
  /** The executions of this exact code, likeliest first (see `likelihood`), then newest first. */
  executions: ToolCallExecution[];
  /** How many executions ran this exact code, up to COUNT_CAP. */
  count: number;
  capped: boolean;
}

interface Candidate extends Omit<ToolCallExecution, 'outputMatches' | 'sameRequest'> {
  requestId: string | null;
  call: bigint;
  stdout: string;
  stderr: string;
  count: bigint;
}

/**
 * The executions behind a sample's tool calls, joined on the code's exact text: the one join from a rollout to
 * the sandbox that none of the trainer's own tools can make. A rollout of `@fusebox/tools` names itself in
 * each run (the sample's `request_id`, `requestId` here), and its own runs come first. verl's sandbox tool sends
 * no id, and code that many samples share (`print(6 * 7)`) ran many times: then the run whose stdout and stderr
 * the tool response contains is the one the model saw, and is listed first.
 */
export async function toolCallExecutions(
  prisma: PrismaClient,
  calls: readonly ToolCallInput[],
  requestId: string | null = null,
): Promise<ToolCallExecutions[]> {
  if (calls.length === 0) return [];
  const rows = await prisma.$queryRaw<Candidate[]>`
    SELECT c."call", e."id", e."source", e."status", e."run_status" AS "runStatus", e."return_code" AS "returnCode",
      e."run_ms" AS "runMs", e."output_truncated" AS "outputTruncated", e."requested_at" AS "requestedAt",
      e."session_id" AS "sessionId", e."request_id" AS "requestId", e."stdout", e."stderr", n."count"
    FROM unnest(${calls.map((call) => call.code)}::text[]) WITH ORDINALITY AS c ("code", "call")
    CROSS JOIN LATERAL (
      SELECT count(*) AS "count" FROM (SELECT 1 FROM "execution" WHERE "code" = c."code" LIMIT ${COUNT_CAP + 1}) x
    ) n
    CROSS JOIN LATERAL (
      SELECT * FROM "execution" WHERE "code" = c."code"
      ORDER BY ("request_id" = ${requestId}) IS TRUE DESC, "requested_at" DESC
      LIMIT ${CANDIDATES_PER_CALL}
    ) e`;
  return calls.map((call, index) => {
    const candidates = rows.filter((row) => Number(row.call) === index + 1);
    const count = Number(candidates[0]?.count ?? 0);
    const ranked = candidates
      .map(({ call: _call, stdout, stderr, count: _count, requestId: sentBy, ...execution }) => ({
        ...execution,
        sameRequest: requestId !== null && sentBy === requestId,
        outputMatches: showsOutput(call.response, stdout, stderr),
      }))
      .sort((a, b) => likelihood(b) - likelihood(a));
    return {
      executions: ranked.slice(0, EXECUTIONS_PER_CALL),
      count: Math.min(count, COUNT_CAP),
      capped: count > COUNT_CAP,
    };
  });
}

/**
 * How surely a run is the one the model saw. A request id is the client's to choose and may repeat (a run
 * resumed, ids like `step-i`), so a run of the same request whose output the response does not show ranks below
 * one whose output it shows; when nothing shows (a response cut by the tool), the same request decides.
 */
function likelihood(run: Pick<ToolCallExecution, 'sameRequest' | 'outputMatches'>): number {
  if (run.outputMatches) return run.sameRequest ? 3 : 2;
  return run.sameRequest ? 1 : 0;
}

/**
 * Whether a tool response shows this output. verl's sandbox tool answers with stdout then stderr; an output
 * with nothing in it matches only an empty response, since every response contains the empty string.
 */
function showsOutput(response: string | null, stdout: string, stderr: string): boolean {
  if (response === null) return false;
  const output = (stdout + stderr).trim();
  return output === '' ? response.trim() === '' : response.includes(output);
}
