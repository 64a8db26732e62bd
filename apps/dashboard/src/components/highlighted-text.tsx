'use client';

import { type SearchQuery, matchRanges, segments } from '@fusebox/rollouts/query';
import { useMemo } from 'react';

/** Text with the search's matches marked; the same matching rules as the server's search. */
export function HighlightedText({ text, query }: { text: string; query: SearchQuery | null }) {
  const parts = useMemo(() => (query ? segments(text, matchRanges(text, query)) : null), [text, query]);
  if (!parts) return <>{text}</>;
  return <>{parts.map((part, index) => (part.match ? <mark key={index}>{part.text}</mark> : part.text))}</>;
}
