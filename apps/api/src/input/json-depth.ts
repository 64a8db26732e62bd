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

/** What one pass over a JSON text found, before it is parsed. */
export interface JsonScan {
  tooDeep?: TooDeep;
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

/**
 * Reads how deep a JSON text nests, and how many entries each top-level field's array or object holds, before
 * the text is parsed: `JSON.parse` of 100,000 `[` takes a quarter of a second and its value cannot be
 * stringified (the stack overflows), and parsing 100,000 `files` takes longer than refusing them from a count.
 * One pass, no recursion, linear whatever the text (a string's end is found with `indexOf`). Malformed text is
 * not judged here: it is left to `JSON.parse`, which reports it. The scan stops at the first level too deep.
 *
 * @example
 * scanJson('{"cells": ["1", "2"]}', 64).entries.get('cells'); // { kind: 'list', count: 2 }
 * scanJson('[[1]]', 1).tooDeep; // { position: 1, limit: 1 }
 */
export function scanJson(text: string, limit: number): JsonScan {
  const entries = new Map<string, FieldEntries>();
  let depth = 0;
  let key: string | undefined;
  let field: FieldEntries | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      const end = closingQuote(text, index);
      if (end === -1) break;
      if (depth === 1 && nextSignificant(text, end + 1) === COLON) key = readKey(text, index, end);
      else if (depth === 2 && field && field.count === 0) field.count = 1;
      index = end;
    } else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      depth += 1;
      if (depth > limit) return { tooDeep: { position: index, limit }, entries };
      if (depth === 2 && key !== undefined) {
        field = { kind: char === OPEN_ARRAY ? 'list' : 'dictionary', count: 0 };
        entries.set(key, field);
      } else if (depth === 3 && field && field.count === 0) {
        field.count = 1;
      }
    } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) {
      depth -= 1;
      if (depth === 1) field = undefined;
    } else if (depth === 2 && field) {
      if (char === COMMA) field.count += 1;
      else if (field.count === 0 && char > 0x20) field.count = 1;
    }
  }
  return { entries };
}

/**
 * Where a JSON text first nests deeper than `limit`, if it does (see {@link scanJson}).
 *
 * @example
 * jsonTooDeep('[[1]]', 1); // { position: 1, limit: 1 }
 * jsonTooDeep('{"a": "[[[["}', 1); // undefined
 */
export function jsonTooDeep(text: string, limit: number): TooDeep | undefined {
  return scanJson(text, limit).tooDeep;
}

/** The index of the quote that closes the string opened at `open`, or -1 if it is never closed. */
function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    // A quote after an odd run of backslashes is escaped. Each run is walked once, so this stays linear.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** The first character after `from` that is not JSON whitespace (NaN at the end). */
function nextSignificant(text: string, from: number): number {
  let index = from;
  while (index < text.length && text.charCodeAt(index) <= 0x20) index += 1;
  return text.charCodeAt(index);
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
