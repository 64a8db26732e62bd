import type { SearchQuery } from './search-query';
import { MAX_TERM_LENGTH, words } from './search-terms';

/**
 * The rollout browser's one query box, parsed: text and field conditions combined with AND, OR and NOT.
 *
 * - `traceback` matches samples with a word that begins so (as the plain search box always did); `"print(x"`, and
 *   any text typed with punctuation, must also appear verbatim, ignoring case.
 * - `score<=0`, `turns>3`, `chars>=2000`, `tool_calls:0`, `tool_errors>0`, `step>=50`: the importer's numbers per sample
 *   (`length` is `chars`). `acc:true`, `data_source:"openai/gsm8k"`, `pred!=7`, `reward>0.5`: the dump's extra
 *   fields, `:` and `=` comparing the value as text (a value with `*` as a pattern: `data_source:*gsm*`; quoted, as written),
 *   `~` finding it anywhere in the text, case ignored (`data_source~gsm`, the same as `:*gsm*`), `< <= > >=` as a
 *   number; `extra.NAME` names an extra field whatever it is called.
 * - Terms side by side must all hold; `OR` between them, `NOT` or `-` before one, parentheses to group. The
 *   operators are upper case: `not` and `or` are words to find.
 *
 * A token that looks like a comparison names a field only when the name is a builtin or one of the run's extra
 * fields (`knownFields`), so code such as `x=1` stays text.
 */
export type SampleQuery =
  | { kind: 'word'; word: string }
  | { kind: 'phrase'; text: string }
  | { kind: 'field'; field: QueryField; op: Comparison; value: string; pattern: boolean }
  | { kind: 'not'; node: SampleQuery }
  | { kind: 'and' | 'or'; nodes: SampleQuery[] };

/** A builtin number of a sample (its column), or an extra field of the dump. */
export type QueryField = { builtin: BuiltinField } | { extra: string };

export const BUILTIN_FIELDS = ['score', 'chars', 'tool_calls', 'tool_errors', 'turns', 'step'] as const;
export type BuiltinField = (typeof BUILTIN_FIELDS)[number];
const FIELD_ALIASES: Record<string, BuiltinField> = { length: 'chars' };

export type Comparison = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** A query the parser refused, with where: the message names the token and its column (1-based). */
export class SampleQueryError extends Error {
  override readonly name = 'SampleQueryError';
}

/** Word atoms a query may hold: each is a bit of a mask when candidates are checked (search-samples.ts). */
export const MAX_QUERY_WORDS = 30;
/** Parentheses and NOTs nested deeper than this are refused (the parser and the checks recurse). */
const MAX_DEPTH = 32;

const EXTRA_PREFIX = 'extra.';
const COMPARISON = /^([A-Za-z_][A-Za-z0-9_.-]*)(!=|<=|>=|:|=|~|<|>)(.*)$/s;

interface Token {
  kind: 'open' | 'close' | 'and' | 'or' | 'not' | 'text' | 'quoted' | 'field';
  text: string;
  column: number;
  /** For a field token: the field, comparison and value, and whether the value is a `*` pattern. */
  field?: { field: QueryField; op: Comparison; value: string; pattern: boolean };
}

/**
 * Parses what was typed into the query box. Throws SampleQueryError naming the problem; returns null when
 * nothing searchable was typed (only punctuation, or nothing).
 *
 * @example
 * parseSampleQuery('score<=0 traceback -"ZeroDivision"', { knownFields: new Set(['acc']) });
 */
export function parseSampleQuery(
  text: string,
  { knownFields }: { knownFields: ReadonlySet<string> },
): SampleQuery | null {
  const tokens = tokenize(text, knownFields);
  let at = 0;
  const peek = () => tokens[at];
  const fail = (message: string, token = peek()): never => {
    throw new SampleQueryError(
      token ? `${message} at column ${token.column} (“${token.text}”)` : `${message} at the end of the query`,
    );
  };
  const parseOr = (depth: number): SampleQuery | null => {
    const nodes = [parseAnd(depth)];
    while (peek()?.kind === 'or') {
      at += 1;
      if (peek() === undefined || peek()!.kind === 'close' || peek()!.kind === 'or')
        fail('OR needs a term after it');
      nodes.push(parseAnd(depth));
    }
    return combine('or', nodes);
  };
  const parseAnd = (depth: number): SampleQuery | null => {
    const nodes: (SampleQuery | null)[] = [];
    for (;;) {
      const token = peek();
      if (token === undefined || token.kind === 'close' || token.kind === 'or') break;
      if (token.kind === 'and') {
        at += 1;
        const next = peek();
        if (nodes.length === 0 || next === undefined || ['close', 'or', 'and'].includes(next.kind))
          fail('AND needs a term on each side', token);
        continue;
      }
      nodes.push(parseUnary(depth));
    }
    return combine('and', nodes);
  };
  const parseUnary = (depth: number): SampleQuery | null => {
    if (depth > MAX_DEPTH) fail(`more than ${MAX_DEPTH} nested parentheses or NOTs`);
    const token = peek()!;
    at += 1;
    switch (token.kind) {
      case 'not': {
        const next = peek();
        if (next === undefined || ['close', 'or', 'and'].includes(next.kind))
          fail('NOT needs a term after it', token);
        const node = parseUnary(depth + 1);
        return node === null ? null : { kind: 'not', node };
      }
      case 'open': {
        const node = parseOr(depth + 1);
        if (peek()?.kind !== 'close') fail('a “(” is never closed', token);
        at += 1;
        return node;
      }
      case 'field':
        return { kind: 'field', ...token.field! };
      case 'quoted':
        return textNode(token.text, true);
      default:
        return textNode(token.text, false);
    }
  };
  const query = parseOr(0);
  if (at < tokens.length) fail('a “)” without its “(”');
  if (query !== null && wordAtoms(query).length > MAX_QUERY_WORDS)
    throw new SampleQueryError(`more than ${MAX_QUERY_WORDS} different words in one query`);
  return query;
}

/** The distinct words of a query's word atoms, in order of first appearance. */
export function wordAtoms(query: SampleQuery): string[] {
  const found = new Set<string>();
  const visit = (node: SampleQuery): void => {
    if (node.kind === 'word') found.add(node.word);
    else if (node.kind === 'not') visit(node.node);
    else if (node.kind === 'and' || node.kind === 'or') node.nodes.forEach(visit);
  };
  visit(query);
  return [...found];
}

/**
 * Words every match must contain: what the word index can find candidates by. An AND needs the words of each
 * side, an OR only those all its sides need, a NOT none.
 */
export function requiredWords(query: SampleQuery): string[] {
  switch (query.kind) {
    case 'word':
      return [query.word];
    case 'and':
      return [...new Set(query.nodes.flatMap(requiredWords))];
    case 'or': {
      const [first, ...rest] = query.nodes.map(requiredWords);
      return first!.filter((word) => rest.every((words) => words.includes(word)));
    }
    default:
      return [];
  }
}

/** Whether a query holds a word or a phrase (else it is field conditions only). */
export const hasText = (query: SampleQuery): boolean =>
  query.kind === 'word' ||
  query.kind === 'phrase' ||
  (query.kind === 'not' && hasText(query.node)) ||
  ((query.kind === 'and' || query.kind === 'or') && query.nodes.some(hasText));

/** Whether a query holds a phrase: its candidates' texts are read, so fewer are checked for the same time. */
export const hasPhrase = (query: SampleQuery): boolean =>
  query.kind === 'phrase' ||
  (query.kind === 'not' && hasPhrase(query.node)) ||
  ((query.kind === 'and' || query.kind === 'or') && query.nodes.some(hasPhrase));

/** The words and phrases a match shows (those outside a NOT), to mark them in its text. */
export function shownText(query: SampleQuery): SearchQuery {
  const terms = new Set<string>();
  const phrases = new Set<string>();
  const visit = (node: SampleQuery): void => {
    if (node.kind === 'word') terms.add(node.word);
    else if (node.kind === 'phrase') phrases.add(node.text);
    else if (node.kind === 'and' || node.kind === 'or') node.nodes.forEach(visit);
  };
  visit(query);
  return { terms: [...terms], phrases: [...phrases] };
}

/**
 * A chunk of text as the plain search box read it: each of its words (a prefix of index words), and, when it
 * was quoted or holds punctuation, the chunk verbatim too.
 */
function textNode(chunk: string, quoted: boolean): SampleQuery | null {
  const lower = chunk.trim().toLowerCase();
  const chunkWords = words(lower);
  if (chunkWords.length === 0) return null;
  const nodes: SampleQuery[] = [...new Set(chunkWords)]
    .filter((word) => word.length <= MAX_TERM_LENGTH)
    .map((word) => ({ kind: 'word', word }));
  if (quoted || chunkWords.length !== 1 || chunkWords[0] !== lower)
    nodes.push({ kind: 'phrase', text: lower });
  return combine('and', nodes);
}

function combine(kind: 'and' | 'or', nodes: (SampleQuery | null)[]): SampleQuery | null {
  const kept = nodes.filter((node): node is SampleQuery => node !== null);
  // An OR with an empty side (only punctuation) would match everything that side does: drop the side.
  if (kept.length <= 1) return kept[0] ?? null;
  return { kind, nodes: kept.flatMap((node) => (node.kind === kind ? node.nodes : [node])) };
}

function tokenize(text: string, knownFields: ReadonlySet<string>): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    const column = at + 1;
    if (/\s/.test(char)) {
      at += 1;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: char === '(' ? 'open' : 'close', text: char, column });
      at += 1;
    } else if (char === '"') {
      const end = text.indexOf('"', at + 1);
      if (end < 0) throw new SampleQueryError(`a quote is never closed at column ${column}`);
      tokens.push({ kind: 'quoted', text: text.slice(at + 1, end), column });
      at = end + 1;
    } else if (char === '-' && at + 1 < text.length && !/[\s)]/.test(text[at + 1]!)) {
      tokens.push({ kind: 'not', text: '-', column });
      at += 1;
    } else {
      // A parenthesis inside a token is text (`print(total`, `f(x)`); one that starts a token, or closes
      // more than the token opened, groups.
      let end = at;
      let open = 0;
      for (; end < text.length && !/[\s"]/.test(text[end]!); end++) {
        if (text[end] === '(') open += 1;
        if (text[end] === ')') {
          if (open === 0) break;
          open -= 1;
        }
      }
      let word = text.slice(at, end);
      // A field's value may be quoted: data_source:"openai/gsm8k".
      if (/(?:!=|<=|>=|[:=~<>])$/.test(word) && text[end] === '"') {
        const close = text.indexOf('"', end + 1);
        if (close < 0) throw new SampleQueryError(`a quote is never closed at column ${end + 1}`);
        word += text.slice(end, close + 1);
        end = close + 1;
      }
      tokens.push(wordToken(word, column, knownFields));
      at = end;
    }
  }
  return tokens;
}

function wordToken(word: string, column: number, knownFields: ReadonlySet<string>): Token {
  if (word === 'AND' || word === 'OR' || word === 'NOT')
    return { kind: word.toLowerCase() as 'and' | 'or' | 'not', text: word, column };
  const match = COMPARISON.exec(word);
  const field = match ? fieldNamed(match[1]!, knownFields) : null;
  if (match === null || field === null) return { kind: 'text', text: word, column };
  let value = match[3]!;
  // A quoted value is compared as written, stars and all.
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  if (quoted) value = value.slice(1, -1);
  else if (value === '') throw new SampleQueryError(`“${word}” at column ${column} compares with nothing`);
  if (match[2] === '~') {
    if ('builtin' in field)
      throw new SampleQueryError(`“${word}” at column ${column}: ~ finds text, and ${match[1]} is a number`);
    // Quoted or not, a part to find anywhere: its own stars still stand for any text.
    return {
      kind: 'field',
      text: word,
      column,
      field: { field, op: '=', value: `*${value}*`, pattern: true },
    };
  }
  const op: Comparison = match[2] === ':' ? '=' : (match[2] as Comparison);
  const numeric = 'builtin' in field || (op !== '=' && op !== '!=');
  if (numeric && !Number.isFinite(Number(value)))
    throw new SampleQueryError(`“${word}” at column ${column}: ${match[1]} compares with a number`);
  return {
    kind: 'field',
    text: word,
    column,
    field: { field, op, value, pattern: !quoted && value.includes('*') },
  };
}

function fieldNamed(name: string, knownFields: ReadonlySet<string>): QueryField | null {
  if (name.startsWith(EXTRA_PREFIX) && name.length > EXTRA_PREFIX.length)
    return { extra: name.slice(EXTRA_PREFIX.length) };
  const builtin = FIELD_ALIASES[name] ?? name;
  if ((BUILTIN_FIELDS as readonly string[]).includes(builtin)) return { builtin: builtin as BuiltinField };
  return knownFields.has(name) ? { extra: name } : null;
}
