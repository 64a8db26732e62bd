import { TRPCError, type TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { MAX_EPOCH_MS, epochMs } from '@fusebox/db/bounded-numbers';
import { containsText } from '../contains-text';
import { publicProcedure } from '../init';
import { watchChanges } from '../watch-changes';
import { SIGKILL_EXIT } from '../load-history';
import { requestIdInput, toolCallExecutions, toolCallInput } from '../tool-call-executions';

/** Tool calls looked up at once: more than one sample's worth. */
const MAX_TOOL_CALLS = 100;

/**
 * What an execution row's status may be: SandboxFusion's, and for a request that got no execution's answer,
 * Refused, Abandoned or Error (see the `execution` model).
 */
const STATUSES = ['Success', 'Failed', 'SandboxError', 'Refused', 'Abandoned', 'Error'] as const;
/**
 * Not stored statuses, but outcomes the overview's error split counts: the Failed runs the kernel killed
 * without a time limit (exit 137), as the memory cap ends a run, and the requests refused with 429.
 */
const OUTCOME_WHERE = {
  OutOfMemory: {
    status: 'Failed',
    returnCode: SIGKILL_EXIT,
    OR: [{ runStatus: null }, { runStatus: { not: 'TimeLimitExceeded' } }],
  },
  RateLimited: { status: 'Refused', message: { startsWith: '429' } },
};
const OUTCOMES = ['OutOfMemory', 'RateLimited'] as const satisfies readonly (keyof typeof OUTCOME_WHERE)[];

const listInput = z.object({
  status: z.enum([...STATUSES, ...OUTCOMES]).optional(),
  language: z.string().min(1).max(40).optional(),
  /** Requested at or after, ms since the epoch. */
  from: epochMs().optional(),
  /** Requested before, ms since the epoch. */
  to: epochMs().optional(),
  sessionId: z.string().min(1).max(20).optional(),
  /** Text the code, stdout or stderr holds, ignoring case (`%` and `_` are themselves). */
  q: z.string().trim().min(1).max(200).optional(),
  /** `newest` first (by request time), or `slowest` first (by run time, executions that ran). */
  sort: z.enum(['newest', 'slowest']).default('newest'),
  limit: z.int().min(1).max(200).default(50),
  /**
   * The last row of the previous page, as `{sort key}:{id}`: its request time in ms when newest first, its run
   * time in ms when slowest first.
   */
  cursor: z
    .string()
    .regex(/^[0-9.e+-]{1,32}:[0-9a-f-]{36}$/)
    .refine((cursor) => {
      const key = Number(cursor.split(':', 1)[0]);
      return Number.isFinite(key) && key >= 0 && key <= MAX_EPOCH_MS;
    }, 'the cursor names no time a row can have')
    .nullish(),
});

/** Executions from every door (/run_code, /run_jupyter, sessions), newest first. */
export const executionsRouter = {
  /**
   * Over SSE, the newest recorded execution's id (a UUIDv7, taken when the row is recorded, so a new row
   * changes it whenever it was requested), read through the primary key every FUSEBOX_DASHBOARD_LIVE_INTERVAL_MS
   * and sent when it changes: the list refetches on each event instead of polling.
   */
  changes: publicProcedure.subscription(async function* ({ ctx, signal }) {
    yield* watchChanges(
      async () => {
        const newest = await ctx.prisma.execution.findFirst({
          orderBy: { id: 'desc' },
          select: { id: true },
        });
        return { version: newest?.id ?? '', value: { newest: newest?.id ?? null } };
      },
      ctx.limits.liveIntervalMs,
      signal,
    );
  }),

  list: publicProcedure.input(listInput).query(async ({ ctx, input }) => {
    const [cursorKey, cursorId] = input.cursor ? input.cursor.split(':') : [];
    const slowest = input.sort === 'slowest';
    // Keyset pagination: stable under inserts, and as fast on page 1,000 as on page 1.
    const after =
      cursorKey === undefined || cursorId === undefined
        ? undefined
        : slowest
          ? [{ runMs: { lt: Number(cursorKey) } }, { runMs: Number(cursorKey), id: { lt: cursorId } }]
          : [
              { requestedAt: { lt: new Date(Number(cursorKey)) } },
              { requestedAt: new Date(Number(cursorKey)), id: { lt: cursorId } },
            ];
    const rows = await ctx.prisma.execution.findMany({
      where: {
        AND: [
          ...(input.q === undefined
            ? []
            : [
                {
                  OR: [
                    { code: containsText(input.q) },
                    { stdout: containsText(input.q) },
                    { stderr: containsText(input.q) },
                  ],
                },
              ]),
          ...(after === undefined ? [] : [{ OR: after }]),
        ],
        ...(slowest ? { runMs: { not: null } } : {}),
        ...(input.status === 'OutOfMemory' || input.status === 'RateLimited'
          ? OUTCOME_WHERE[input.status]
          : input.status
            ? { status: input.status }
            : {}),
        ...(input.language ? { language: input.language } : {}),
        ...(input.sessionId ? { sessionId: input.sessionId } : {}),
        requestedAt: {
          ...(input.from !== undefined ? { gte: new Date(input.from) } : {}),
          ...(input.to !== undefined ? { lt: new Date(input.to) } : {}),
        },
      },
      orderBy: slowest ? [{ runMs: 'desc' }, { id: 'desc' }] : [{ requestedAt: 'desc' }, { id: 'desc' }],
      take: input.limit + 1,
      select: {
        id: true,
        source: true,
        language: true,
        status: true,
        runStatus: true,
        returnCode: true,
        requestedAt: true,
        queueWaitMs: true,
        compileMs: true,
        runMs: true,
        sessionId: true,
        limiterKey: true,
      },
    });
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    const key = last && (slowest ? last.runMs : last.requestedAt.getTime());
    return {
      items: page,
      // String(number) is the shortest text that reads back as the same double, so the next page starts exactly.
      nextCursor: rows.length > input.limit && last && key != null ? `${String(key)}:${last.id}` : null,
    };
  }),

  /** Languages seen among the latest executions, for the filter. */
  languages: publicProcedure.query(async ({ ctx }) => {
    const rows = await ctx.prisma.$queryRaw<{ language: string }[]>`
      SELECT DISTINCT "language" FROM (SELECT "language" FROM "execution" ORDER BY "requested_at" DESC LIMIT 5000) latest
      ORDER BY 1`;
    return rows.map((row) => row.language);
  }),

  /**
   * The executions behind a rollout sample's tool calls, in the calls' order, the runs its own rollout sent
   * (`requestId`, the sample's `request_id`) first (see `toolCallExecutions`).
   */
  forToolCalls: publicProcedure
    .input(
      z.object({
        calls: z.array(toolCallInput).max(MAX_TOOL_CALLS),
        requestId: requestIdInput,
      }),
    )
    .query(({ ctx, input }) => toolCallExecutions(ctx.prisma, input.calls, input.requestId)),

  byId: publicProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const parsed = z.uuid().safeParse(input.id);
    const execution = parsed.success
      ? await ctx.prisma.execution.findUnique({
          where: { id: parsed.data },
          select: {
            id: true,
            source: true,
            language: true,
            code: true,
            stdin: true,
            status: true,
            message: true,
            compileStatus: true,
            runStatus: true,
            returnCode: true,
            stdout: true,
            stderr: true,
            outputTruncated: true,
            limiterKey: true,
            requestedAt: true,
            acquiredAt: true,
            finishedAt: true,
            queueWaitMs: true,
            compileMs: true,
            runMs: true,
            workerId: true,
            sessionId: true,
            requestId: true,
            toolInstance: true,
          },
        })
      : null;
    if (!execution) throw new TRPCError({ code: 'NOT_FOUND', message: `no execution has id ${input.id}` });
    return execution;
  }),
} satisfies TRPCRouterRecord;
