import { TRPCError, type TRPCRouterRecord } from '@trpc/server';
import { z } from 'zod';
import { SESSION_STATES, rewardDetailSchema } from '@fusebox/agent-sessions';
import { taskMetadataSchema } from '@fusebox/tasks';
import { epochDate, pgInt } from '@fusebox/db/bounded-numbers';
import { publicProcedure } from '../init';
import type { RouterContext } from '../router-context';
import { readSessionActions } from '../session-actions';
import { watchChanges } from '../watch-changes';

/** Sessions whose changes the live list follows: its first page (the dashboard asks for 100). */
const LIVE_SESSIONS = 200;

/** A sid: 1 to 20 digits as stored (`session.id` is a varchar(20)). */
const sessionId = z.string().min(1).max(20);

const listInput = z.object({
  state: z.enum(SESSION_STATES).optional(),
  /** Sessions of one task (its instance_hash). */
  taskId: z.string().min(1).optional(),
  /** Only sessions that recorded an error (true) or none (false). */
  hasErrors: z.boolean().optional(),
  /** Only sessions with a computed reward (true) or without (false). */
  rewarded: z.boolean().optional(),
  // Coerced, because without a transformer a date crosses HTTP as an ISO string.
  createdAfter: epochDate().optional(),
  createdBefore: epochDate().optional(),
  limit: z.int().min(1).max(200).default(50),
  /** The last id of the previous page. */
  cursor: z.string().optional(),
});

const sessionSummary = {
  id: true,
  taskId: true,
  state: true,
  sessionMode: true,
  createdAt: true,
  updatedAt: true,
  lastActionAt: true,
  postprocessedAt: true,
  actionCount: true,
  errorCount: true,
  reward: true,
  f2pCount: true,
  f2pTotal: true,
  p2pCount: true,
  p2pTotal: true,
  rewardAt: true,
  task: { select: { name: true, language: true } },
} as const;

/** Agent sessions (/start_instance … /compute_reward): newest first, and one with everything it did. */
export const sessionsRouter = {
  /**
   * Over SSE, a digest of the newest sessions (the list's first page: ids and last updates, under the index on
   * created_at), read every FUSEBOX_DASHBOARD_LIVE_INTERVAL_MS and sent when it changes: a new session, or an
   * action, error, reward or end of one on the first page, refetches the list instead of a poll.
   */
  changes: publicProcedure.subscription(async function* ({ ctx, signal }) {
    yield* watchChanges(
      async () => {
        const [digest] = await ctx.prisma.$queryRaw<{ version: string | null }[]>`
          SELECT md5(string_agg("id" || ':' || "updated_at"::text, ',')) AS "version"
          FROM (SELECT "id", "updated_at" FROM "session" ORDER BY "created_at" DESC, "id" DESC
            LIMIT ${LIVE_SESSIONS}) newest`;
        const version = digest?.version ?? '';
        return { version, value: { version } };
      },
      ctx.limits.liveIntervalMs,
      signal,
    );
  }),

  list: publicProcedure.input(listInput).query(async ({ ctx, input }) => {
    const rows = await ctx.prisma.session.findMany({
      where: {
        ...(input.state ? { state: input.state } : {}),
        ...(input.taskId ? { taskId: input.taskId } : {}),
        ...(input.hasErrors === undefined ? {} : { errorCount: input.hasErrors ? { gt: 0 } : 0 }),
        ...(input.rewarded === undefined ? {} : { reward: input.rewarded ? { not: null } : null }),
        ...(input.createdAfter || input.createdBefore
          ? {
              createdAt: {
                ...(input.createdAfter ? { gte: input.createdAfter } : {}),
                ...(input.createdBefore ? { lt: input.createdBefore } : {}),
              },
            }
          : {}),
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: input.limit + 1,
      ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
      select: sessionSummary,
    });
    const page = rows.slice(0, input.limit);
    return { items: page, nextCursor: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null };
  }),

  /**
   * One session: its task, reward, errors and the first page of its actions (`actionsNextCursor` pages on
   * through `actions`). Each action's texts are cut at the limits' preview length (`truncated` says so;
   * `action` reads one whole), so the answer is bounded however many actions and characters a session holds.
   */
  byId: publicProcedure.input(z.object({ id: sessionId })).query(async ({ ctx, input }) => {
    const { sessionActionsPage, actionPreviewChars } = ctx.limits;
    const session = await ctx.prisma.session.findUnique({
      where: { id: input.id },
      select: {
        ...sessionSummary,
        rewardDetail: true,
        // Read for a search task's spec (golden answers, rule), which the timeline shows before any reward.
        task: { select: { name: true, language: true, prompt: true, metadata: true } },
        events: {
          orderBy: { createdAt: 'asc' },
          take: sessionActionsPage,
          select: { level: true, route: true, message: true, createdAt: true },
        },
        _count: { select: { events: true } },
      },
    });
    if (!session) throw new TRPCError({ code: 'NOT_FOUND', message: `no session has sid ${input.id}` });
    const actions = await readSessionActions(ctx.prisma, input.id, {
      afterSeq: 0,
      take: sessionActionsPage,
      maxChars: actionPreviewChars,
    });
    const { rewardDetail, task, _count, ...rest } = session;
    return {
      ...rest,
      task: { name: task.name, language: task.language, prompt: task.prompt },
      /** The task's search spec, for a search task; its golden answers may have changed since a reward. */
      search: taskMetadataSchema.safeParse(task.metadata).data?.search ?? null,
      actions: actions.items,
      /** The `cursor` of the next page of actions (`actions`), or null when this was all of them. */
      actionsNextCursor: actions.nextCursor,
      /** Events recorded beyond the first page's worth, not sent. */
      moreEvents: _count.events - rest.events.length,
      /** The length each action's texts are cut at in this answer and in `actions`. */
      actionPreviewChars,
      rewardDetail: rewardDetail === null ? null : rewardDetailSchema.parse(rewardDetail),
    };
  }),

  /** The next page of a session's actions after `cursor` (the last seq seen), texts cut as in `byId`. */
  actions: publicProcedure
    .input(z.object({ id: sessionId, cursor: pgInt(0).nullish() }))
    .query(async ({ ctx, input }) => {
      await assertSession(ctx, input.id);
      return readSessionActions(ctx.prisma, input.id, {
        afterSeq: input.cursor ?? 0,
        take: ctx.limits.sessionActionsPage,
        maxChars: ctx.limits.actionPreviewChars,
      });
    }),

  /** One action whole: its texts up to the limits' `actionMaxChars` each (`truncated` says if even that cut). */
  action: publicProcedure.input(z.object({ id: sessionId, seq: pgInt(1) })).query(async ({ ctx, input }) => {
    const [action] = (
      await readSessionActions(ctx.prisma, input.id, {
        afterSeq: 0,
        take: 1,
        maxChars: ctx.limits.actionMaxChars,
        seq: input.seq,
      })
    ).items;
    if (!action) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `session ${input.id} has no action ${input.seq}` });
    }
    return { ...action, maxChars: ctx.limits.actionMaxChars };
  }),
} satisfies TRPCRouterRecord;

async function assertSession(ctx: RouterContext, id: string): Promise<void> {
  const found = await ctx.prisma.session.findUnique({ where: { id }, select: { id: true } });
  if (!found) throw new TRPCError({ code: 'NOT_FOUND', message: `no session has sid ${id}` });
}
