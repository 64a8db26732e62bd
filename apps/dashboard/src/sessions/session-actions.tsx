'use client';

import type { AppRouter } from '@fusebox/api-router';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useState } from 'react';
import { formatChars } from '~/components/format';
import { useTRPC } from '~/trpc/client';

type Session = inferRouterOutputs<AppRouter>['sessions']['byId'];
export type SessionAction = Session['actions'][number];

/**
 * A session's actions as far as the reader asked: the first page came with the session; each press of the
 * button reads the next page (`sessions.actions`), so a session of thousands of actions costs one page at once.
 */
export function useSessionActions(session: Session) {
  const trpc = useTRPC();
  const [wanted, setWanted] = useState(false);
  const more = useInfiniteQuery({
    ...trpc.sessions.actions.infiniteQueryOptions(
      { id: session.id },
      { initialCursor: session.actionsNextCursor, getNextPageParam: (page) => page.nextCursor },
    ),
    enabled: wanted && session.actionsNextCursor !== null,
  });
  const loaded = more.data?.pages.flatMap((page) => page.items) ?? [];
  const actions = [...session.actions, ...loaded];
  const hasMore = more.data ? more.hasNextPage : session.actionsNextCursor !== null;
  const button = hasMore ? (
    <li className="turn" aria-label="more actions">
      <button
        type="button"
        disabled={more.isFetching}
        onClick={() => (wanted ? void more.fetchNextPage() : setWanted(true))}
      >
        {more.isFetching
          ? 'loading…'
          : `Show the next actions (${actions.length} of ${session.actionCount} shown)`}
      </button>
      {more.isError ? <span className="bad-text"> {more.error.message}</span> : null}
    </li>
  ) : null;
  return { actions, button };
}

/**
 * An action whose texts the timeline cut at the preview length: a note saying so, and a button that reads the
 * action whole (up to the server's own cap). Returns the texts to show, cut or whole.
 */
export function useWholeAction(sessionId: string, action: SessionAction, previewChars: number) {
  const trpc = useTRPC();
  const [whole, setWhole] = useState(false);
  const read = useQuery({
    ...trpc.sessions.action.queryOptions({ id: sessionId, seq: action.seq }),
    enabled: whole,
  });
  const shown = whole && read.data ? read.data : action;
  const size = action.contentBytes + (action.codeBytes ?? 0) + action.observationBytes;
  const note = action.truncated ? (
    <p className="muted" aria-label="cut text">
      {read.data ? (
        read.data.truncated ? (
          `Shown whole up to ${formatChars(read.data.maxChars)} characters per text (FUSEBOX_DASHBOARD_ACTION_MAX_CHARS).`
        ) : (
          'Shown whole.'
        )
      ) : (
        <>
          Texts cut at {formatChars(previewChars)} characters ({formatChars(size)} bytes in all).{' '}
          <button type="button" disabled={whole} onClick={() => setWhole(true)}>
            {whole ? 'loading…' : 'Show whole'}
          </button>
          {read.isError ? <span className="bad-text"> {read.error.message}</span> : null}
        </>
      )}
    </p>
  ) : null;
  return { shown, note };
}
