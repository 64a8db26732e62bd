'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { DebouncedInput } from '~/components/debounced-input';
import { useTRPC } from '~/trpc/client';
import type { BrowserParams, DerivedBound, FieldFilter } from './browser-params';

function parseNumber(value: string): number | undefined {
  return value.trim() === '' || !Number.isFinite(Number(value)) ? undefined : Number(value);
}

/** A whole number at least 0, or nothing: what a count's bound may be. */
function parseCount(value: string): number | undefined {
  const parsed = parseNumber(value);
  return parsed !== undefined && Number.isInteger(parsed) && parsed >= 0 ? parsed : undefined;
}

type TextMatch = 'is' | 'contains';

/** The part a `*part*` pattern finds anywhere (stars only at its ends), or null for any other value. */
function containedPart(value: string | undefined): string | null {
  const match = value === undefined ? null : /^\*([^*]+)\*$/.exec(value);
  return match ? match[1]! : null;
}

/**
 * A text field's filter: the whole value (`is`, with the step's commonest values offered, or a `*` pattern), or
 * a part found anywhere, case ignored (`contains`, kept in the URL as the pattern `*part*`, which means the
 * same), so that typing `gsm` finds `openai/gsm8k` without knowing the pattern syntax.
 */
function TextFieldFilter({
  name,
  top,
  equals,
  onChange,
}: {
  name: string;
  top: { value: string }[];
  equals: string | undefined;
  onChange: (equals: string | undefined) => void;
}) {
  const part = containedPart(equals);
  // With no value set, the choice is only the user's; with one, the URL says which it is.
  const [chosen, setChosen] = useState<TextMatch>(part === null ? 'is' : 'contains');
  const match: TextMatch = equals === undefined ? chosen : part === null ? 'is' : 'contains';
  const apply = (text: string | undefined, as: TextMatch) =>
    onChange(text === undefined ? undefined : as === 'contains' ? `*${text}*` : text);
  return (
    <label>
      {name}{' '}
      <select
        aria-label={`${name} match`}
        value={match}
        onChange={(event) => {
          const next = event.target.value as TextMatch;
          setChosen(next);
          apply(match === 'contains' ? (part ?? undefined) : equals, next);
        }}
      >
        <option value="is">is</option>
        <option value="contains">contains</option>
      </select>{' '}
      <DebouncedInput
        type="search"
        placeholder={match === 'contains' ? 'part of the value' : 'value, or * pattern'}
        {...(match === 'is' ? { list: `values-${name}` } : {})}
        label={`${name} value`}
        value={match === 'contains' ? (part ?? undefined) : equals}
        parse={(typed) => typed || undefined}
        onCommit={(text) => apply(text, match)}
      />
      <datalist id={`values-${name}`}>
        {top.map((value) => (
          <option key={value.value} value={value.value} />
        ))}
      </datalist>
    </label>
  );
}

/** A min–max pair of inputs for one derived count of the response, applied on Enter or blur. */
function BoundsInput({
  label,
  min,
  max,
  params,
  onChange,
}: {
  label: string;
  min: DerivedBound;
  max: DerivedBound;
  params: BrowserParams;
  onChange: (patch: Partial<BrowserParams>) => void;
}) {
  const input = (bound: DerivedBound, placeholder: string) => (
    <DebouncedInput
      type="number"
      label={`${label} ${placeholder === 'min' ? 'minimum' : 'maximum'}`}
      placeholder={placeholder}
      min={0}
      step={1}
      value={params[bound]}
      parse={parseCount}
      onCommit={(value) => onChange({ [bound]: value, line: null })}
    />
  );
  return (
    <label>
      {label} {input(min, 'min')}–{input(max, 'max')}
    </label>
  );
}

/** Every filter of the bar unset: what "Clear filters" applies (the sort, the search and the step stay). */
const NO_FILTERS = {
  scoreMin: undefined,
  scoreMax: undefined,
  charsMin: undefined,
  charsMax: undefined,
  toolCallsMin: undefined,
  toolCallsMax: undefined,
  turnsMin: undefined,
  turnsMax: undefined,
  fields: [],
} satisfies Partial<BrowserParams>;

const filtered = (params: BrowserParams) =>
  (Object.keys(NO_FILTERS) as (keyof typeof NO_FILTERS)[]).some((name) =>
    name === 'fields' ? params.fields.length > 0 : params[name] !== undefined,
  );

interface FilterBarProps {
  runId: string;
  step: number;
  params: BrowserParams;
  onChange: (patch: Partial<BrowserParams>) => void;
}

/**
 * Score range (compared as numbers), sort, and one control per extra field the step's samples carry: a yes/no
 * choice for booleans, a range for numbers, a value for text.
 */
export function FilterBar({ runId, step, params, onChange }: FilterBarProps) {
  const trpc = useTRPC();
  const fields = useQuery(trpc.rollouts.fields.queryOptions({ runId, step }));
  const setField = (name: string, filter: Omit<FieldFilter, 'name'> | null) => {
    const others = params.fields.filter((field) => field.name !== name);
    onChange({ fields: filter ? [...others, { name, ...filter }] : others, line: null });
  };
  const current = (name: string) => params.fields.find((field) => field.name === name);
  // Booleans sort too (as 1 and 0): `acc` highest first lists the correct answers first.
  const numericFields = (fields.data ?? [])
    .filter((field) => field.kinds.every((kind) => kind === 'number' || kind === 'boolean'))
    .map((field) => field.name);
  return (
    <form className="filter-bar" aria-label="filters" onSubmit={(event) => event.preventDefault()}>
      <label>
        score ≥{' '}
        <DebouncedInput
          type="number"
          label="minimum score"
          step="any"
          value={params.scoreMin}
          parse={parseNumber}
          onCommit={(scoreMin) => onChange({ scoreMin, line: null })}
        />
      </label>
      <label>
        ≤{' '}
        <DebouncedInput
          type="number"
          label="maximum score"
          step="any"
          value={params.scoreMax}
          parse={parseNumber}
          onCommit={(scoreMax) => onChange({ scoreMax, line: null })}
        />
      </label>
      <label>
        sort{' '}
        <select
          aria-label="sort"
          value={params.sortField === undefined ? params.sort : `${params.sort}:${params.sortField}`}
          onChange={(event) => {
            // A field sort's option carries its field: `field_desc:len_penalty`.
            const [sort, ...field] = event.target.value.split(':');
            onChange({
              sort: sort as BrowserParams['sort'],
              sortField: field.length > 0 ? field.join(':') : undefined,
              line: null,
            });
          }}
        >
          <option value="line">line</option>
          <option value="score_desc">score, highest first</option>
          <option value="score_asc">score, lowest first</option>
          <option value="length_desc">response length, longest first</option>
          <option value="length_asc">response length, shortest first</option>
          <option value="tool_calls_desc">tool calls, most first</option>
          <option value="tool_calls_asc">tool calls, fewest first</option>
          <option value="tool_errors_desc">tool errors, most first</option>
          <option value="turns_desc">turns, most first</option>
          <option value="turns_asc">turns, fewest first</option>
          {numericFields.flatMap((name) => [
            <option key={`${name}-desc`} value={`field_desc:${name}`}>
              {name}, highest first
            </option>,
            <option key={`${name}-asc`} value={`field_asc:${name}`}>
              {name}, lowest first
            </option>,
          ])}
        </select>
      </label>
      <BoundsInput label="response chars" min="charsMin" max="charsMax" params={params} onChange={onChange} />
      <BoundsInput
        label="tool calls"
        min="toolCallsMin"
        max="toolCallsMax"
        params={params}
        onChange={onChange}
      />
      <BoundsInput label="turns" min="turnsMin" max="turnsMax" params={params} onChange={onChange} />
      {(fields.data ?? []).map((field) => {
        const filter = current(field.name);
        if (field.kinds.length === 1 && field.kinds[0] === 'boolean') {
          return (
            <label key={field.name}>
              {field.name}{' '}
              <select
                aria-label={`${field.name} filter`}
                value={filter?.equals ?? ''}
                onChange={(event) =>
                  setField(field.name, event.target.value ? { equals: event.target.value } : null)
                }
              >
                <option value="">any</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            </label>
          );
        }
        if (field.kinds.every((kind) => kind === 'number')) {
          const setRange = (min: number | undefined, max: number | undefined) =>
            setField(
              field.name,
              min === undefined && max === undefined
                ? null
                : { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) },
            );
          return (
            <label key={field.name}>
              {field.name}{' '}
              <DebouncedInput
                type="number"
                step="any"
                placeholder="min"
                label={`${field.name} minimum`}
                value={filter?.min}
                parse={parseNumber}
                onCommit={(min) => setRange(min, filter?.max)}
              />
              –
              <DebouncedInput
                type="number"
                step="any"
                placeholder="max"
                label={`${field.name} maximum`}
                value={filter?.max}
                parse={parseNumber}
                onCommit={(max) => setRange(filter?.min, max)}
              />
            </label>
          );
        }
        return (
          <TextFieldFilter
            key={field.name}
            name={field.name}
            top={field.top}
            equals={filter?.equals}
            onChange={(equals) => setField(field.name, equals === undefined ? null : { equals })}
          />
        );
      })}
      {filtered(params) ? (
        <button type="button" onClick={() => onChange({ ...NO_FILTERS, line: null })}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}
