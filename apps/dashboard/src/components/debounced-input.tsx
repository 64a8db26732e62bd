'use client';

import { useEffect, useRef, useState } from 'react';

/** How long typing must pause before a filter applies: long enough not to query on every keystroke. */
const DEBOUNCE_MS = 400;

interface DebouncedInputProps<T extends number | string> {
  label: string;
  type: T extends number ? 'number' : 'search';
  value: T | undefined;
  /** Reads what was typed: a value, or undefined for empty or not a valid value. */
  parse: (text: string) => T | undefined;
  onCommit: (value: T | undefined) => void;
  placeholder?: string;
  /** A datalist of suggestions, by id. */
  list?: string;
  min?: number;
  step?: number | 'any';
}

/**
 * An input (a number, or text to search) that applies as you type, once typing pauses (and at once on Enter,
 * which leaves it, or blur). It keeps its own text while focused, so applying (which changes the URL) never
 * resets what is being typed; when the value changes from outside (back, a link, clear all) it shows the new one.
 */
export function DebouncedInput<T extends number | string>({
  label,
  value,
  parse,
  onCommit,
  ...input
}: DebouncedInputProps<T>) {
  const [text, setText] = useState(value === undefined ? '' : String(value));
  const ref = useRef<HTMLInputElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    if (document.activeElement !== ref.current) setText(value === undefined ? '' : String(value));
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (typed: string) => {
    clearTimeout(timer.current);
    const parsed = parse(typed);
    if (parsed !== value) onCommit(parsed);
  };
  return (
    <input
      ref={ref}
      aria-label={label}
      value={text}
      onChange={(event) => {
        const typed = event.target.value;
        setText(typed);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => commit(typed), DEBOUNCE_MS);
      }}
      onBlur={(event) => commit(event.target.value)}
      onKeyDown={(event) => {
        // Enter is done typing: leaving the field applies it, and gives the keys back to the page (n, p, N…).
        if (event.key === 'Enter') event.currentTarget.blur();
      }}
      {...input}
    />
  );
}
