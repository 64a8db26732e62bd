/** Where a JSON text first nests deeper than its limit. */
export interface TooDeep {
  /** Offset of the bracket that opens one level too many. */
  position: number;
  limit: number;
}

/** How many entries the array or object of a top-level field holds. */
export interface FieldEntries {
  kind: 'list' | 'dictionary';
  count: number;
}

/** Where a JSON text first holds more values than its limit. */
export interface TooMany {
  /** Offset of the first value (or key) past the limit. */
  position: number;
  limit: number;
}

/** The limits a JSON text is held to before it is parsed. */
export interface JsonLimits {
  /** FUSEBOX_MAX_JSON_DEPTH: levels of arrays and objects. */
  maxDepth: number;
  /** FUSEBOX_MAX_JSON_VALUES: values and keys, of any kind. */
  maxValues: number;
}

/** What one pass over a JSON text found, before it is parsed. */
export interface JsonScan {
  tooDeep?: TooDeep;
  tooMany?: TooMany;
  /** The fields of a top-level object whose values are arrays or objects, with their entry counts. */
  entries: Map<string, FieldEntries>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** A run of JSON whitespace (a sticky pattern: it is tried where the scan stands). */
const WHITESPACE = /[\t\n\r ]*/y;
/** The rest of a number or a literal (true, false, null): up to whitespace or punctuation. */
const SCALAR_REST = /[^\t\n\r ",:[\]{}]*/y;

/** The first character at or after `from` that is not JSON whitespace. */
function significant(text: string, from: number): number {
  return text.charCodeAt(from) <= 0x20 ? skip(WHITESPACE, text, from) : from;
}

/** Where a run of `pattern`, tried at `from`, ends: long runs are passed in native code, not a loop. */
function skip(pattern: RegExp, text: string, from: number): number {
  pattern.lastIndex = from;
  pattern.test(text);
  return pattern.lastIndex;
}

/**
 * Reads how deep a JSON text nests, how many values it holds, and how many entries each top-level field's array
 * or object holds, before the text is parsed. `JSON.parse` blocks the event loop for time that grows with the
 * values, not the bytes: 15 MB of `{},` took 3.7 s, 15 MB of one string 0.1 s. 100,000 `[` take a quarter of a
 * second and the value cannot be stringified (the stack overflows), and parsing 100,000 `files` takes longer than
 * refusing them from a count. One pass, no recursion, linear whatever the text (a string's end is found with
 * `indexOf`). Malformed text is not judged here: it is left to `JSON.parse`, which reports it. The scan stops at
 * the first limit passed, and its loop turns once a token (at most 4 × maxValues + 1 of them), runs of whitespace,
 * digits and string characters being passed in native code: its time is bounded by the values allowed, not the
 * body's length. The entries it found when it stops are a count so far.
 *
 * @example
 * scanJson('{"cells": ["1", "2"]}', { maxDepth: 64, maxValues: 100 }).entries.get('cells'); // { kind: 'list', count: 2 }
 * scanJson('[[1]]', { maxDepth: 1, maxValues: 10 }).tooDeep; // { position: 1, limit: 1 }
 * scanJson('[1, 2]', { maxDepth: 1, maxValues: 2 }).tooMany; // { position: 4, limit: 2 }
 */
export function scanJson(text: string, limits: JsonLimits): JsonScan {
  const { maxDepth: limit, maxValues } = limits;
  const entries = new Map<string, FieldEntries>();
  let values = 0;
  let depth = 0;
  let key: string | undefined;
  let field: FieldEntries | undefined;
  // A valid text of V values holds at most 4V + 1 tokens (values, commas, colons, closing brackets): more is too
  // many values, or no JSON at all, and either way not worth scanning on.
  let tokens = 0;
  for (let index = significant(text, 0); index < text.length; index = significant(text, index)) {
    tokens += 1;
    if (tokens > 4 * maxValues + 1) return { tooMany: { position: index, limit: maxValues }, entries };
    const char = text.charCodeAt(index);
    if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) {
      depth -= 1;
      if (depth === 1) field = undefined;
      index += 1;
      continue;
    }
    if (char === COMMA || char === COLON) {
      if (char === COMMA && depth === 2 && field) field.count += 1;
      index += 1;
      continue;
    }
    // Anything else starts a value or a key.
    values += 1;
    if (values > maxValues) return { tooMany: { position: index, limit: maxValues }, entries };
    if (char === QUOTE) {
      const end = closingQuote(text, index);
      if (end === -1) break;
      if (depth === 1 && text.charCodeAt(significant(text, end + 1)) === COLON)
        key = readKey(text, index, end);
      else if (depth === 2 && field && field.count === 0) field.count = 1;
      index = end + 1;
    } else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      depth += 1;
      if (depth > limit) return { tooDeep: { position: index, limit }, entries };
      if (depth === 2 && key !== undefined) {
        field = { kind: char === OPEN_ARRAY ? 'list' : 'dictionary', count: 0 };
        entries.set(key, field);
      } else if (depth === 3 && field && field.count === 0) {
        field.count = 1;
      }
      index += 1;
    } else {
      if (depth === 2 && field && field.count === 0) field.count = 1;
      index = skip(SCALAR_REST, text, index + 1);
    }
  }
  return { entries };
}

/**
 * Why a JSON text must not be parsed (it nests too deep, or holds too many values), if it must not (see
 * {@link scanJson}); for bodies whose fields have no entry limits of their own.
 *
 * @example
 * jsonLimitProblem('[[1]]', { maxDepth: 1, maxValues: 10 }); // 'the JSON nests deeper than 1 levels …'
 * jsonLimitProblem('{"a": "[[[["}', { maxDepth: 1, maxValues: 10 }); // undefined
 */
export function jsonLimitProblem(text: string, limits: JsonLimits): string | undefined {
  const { tooDeep, tooMany } = scanJson(text, limits);
  if (tooDeep) return describeTooDeep(tooDeep);
  if (tooMany) return describeTooMany(tooMany);
  return undefined;
}

/**
 * Plain characters and escapes of a string, at most 4096 of them a match: one unbounded repetition would keep a
 * backtracking entry per escape and overflow the stack on megabytes of `\"`.
 */
const STRING_PART = /(?:[^"\\]+|\\[\s\S]){0,4096}/y;

/** The index of the quote that closes the string opened at `open`, or -1 if it is never closed. */
function closingQuote(text: string, open: number): number {
  const quote = text.indexOf('"', open + 1);
  // Most strings have no escape before their end: found in native code at once.
  if (quote === -1 || text.charCodeAt(quote - 1) !== BACKSLASH) return quote;
  for (let index = open + 1; ;) {
    const from = index;
    index = skip(STRING_PART, text, index);
    if (text.charCodeAt(index) === QUOTE) return index;
    // No progress: the text ends, or ends in a lone backslash.
    if (index === from) return -1;
  }
}

/** A top-level key as its value; a key with escapes is decoded (and a malformed one left to `JSON.parse`). */
function readKey(text: string, open: number, close: number): string {
  const raw = text.slice(open + 1, close);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return raw;
  }
}

/** The one-line reason for a {@link TooDeep} text, naming the setting that sets the limit. */
export function describeTooDeep(tooDeep: TooDeep): string {
  return `the JSON nests deeper than ${tooDeep.limit} levels (FUSEBOX_MAX_JSON_DEPTH) at position ${tooDeep.position}`;
}

/** The one-line reason for a {@link TooMany} text, naming the setting that sets the limit. */
export function describeTooMany(tooMany: TooMany): string {
  return (
    `the JSON holds more than ${tooMany.limit} values and keys (FUSEBOX_MAX_JSON_VALUES); ` +
    `the first past the limit is at position ${tooMany.position}`
  );
}
