'use client';

import { useQuery } from '@tanstack/react-query';
import { BUILTIN_FIELDS } from '@fusebox/rollouts/query';
import { type RefObject, useMemo, useState } from 'react';
import { useTRPC } from '~/trpc/client';

interface QueryBoxProps {
  runId: string;
  step: number;
  initial: string;
  inputRef: RefObject<HTMLInputElement | null>;
}

/** Suggestions shown for the word being typed, at most. */
const SUGGESTIONS = 30;

/**
 * The rollout browser's one query box: words, phrases and field conditions with AND/OR/NOT. It completes the
 * word being typed with the builtin fields, the step's extra fields and their commonest values; the browser
 * offers an option for the whole text, so each suggestion is the text so far with its last word completed.
 */
export function QueryBox({ runId, step, initial, inputRef }: QueryBoxProps) {
  const trpc = useTRPC();
  const fields = useQuery(trpc.rollouts.fields.queryOptions({ runId, step }));
  const [typed, setTyped] = useState(initial);
  const completions = useMemo(() => {
    const names = [
      ...BUILTIN_FIELDS.flatMap((name) => [`${name}>=`, `${name}<=`]),
      ...(fields.data ?? []).flatMap((field) => [
        ...field.top.map(({ value }) => `${field.name}:${/[\s()"]/.test(value) ? `"${value}"` : value}`),
        ...(field.kinds.includes('string') ? [`${field.name}~`] : []),
        ...(field.kinds.includes('number') ? [`${field.name}>=`, `${field.name}<=`] : []),
      ]),
      'AND',
      'OR',
      'NOT',
    ];
    const start = typed.search(/\S*$/);
    const head = typed.slice(0, start);
    const last = typed.slice(start).replace(/^-/, '');
    if (last === '') return [];
    const negated = typed.slice(start).startsWith('-') ? '-' : '';
    return names
      .filter((name) => name.toLowerCase().startsWith(last.toLowerCase()) && name !== last)
      .slice(0, SUGGESTIONS)
      .map((name) => `${head}${negated}${name}`);
  }, [fields.data, typed]);
  return (
    <>
      <input
        ref={inputRef}
        type="search"
        name="q"
        aria-label="search all steps"
        placeholder='Search: words, "phrases", score<=0, acc:true, AND OR NOT (/ or f)'
        title='Words find the words they begin; "quoted" text is found verbatim; score, chars, tool_calls, tool_errors, turns, step and the extra fields compare with : = != < <= > >= (and ~ finds a part of a text field); combine with AND, OR, NOT (or -) and parentheses.'
        defaultValue={initial}
        list="query-completions"
        autoComplete="off"
        onChange={(event) => setTyped(event.target.value)}
      />
      <datalist id="query-completions">
        {completions.map((completion) => (
          <option key={completion} value={completion} />
        ))}
      </datalist>
    </>
  );
}
