'use client';

import { matchRanges, segments } from '@fusebox/api/rollouts/match-ranges';
import type { SearchQuery } from '@fusebox/api/rollouts/search-query';
import { useMemo } from 'react';

/** Text with the search's matches marked; the same matching rules as the server's search. */
export function HighlightedText({ text, query }: { text: string; query: SearchQuery | null }) {
  const parts = useMemo(() => (query ? segments(text, matchRanges(text, query)) : null), [text, query]);
  if (!parts) return <>{text}</>;
  return <>{parts.map((part, index) => (part.match ? <mark key={index}>{part.text}</mark> : part.text))}</>;
}
