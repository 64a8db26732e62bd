import { taggedSpans } from '@fusebox/input/tagged-spans';
import { extractAnswerTag } from '@fusebox/tools';

/**
 * The two tag conventions search agents are trained with. `search-r1`: the model writes
 * `<search>query</search>` and reads `<information>…</information>` (Search-R1). `r1-searcher`: it writes
 * `<|begin_of_query|>query<|end_of_query|>` and reads `<|begin_of_documents|>…<|end_of_documents|>` (R1-Searcher).
 */
export const SEARCH_TAGS = ['search-r1', 'r1-searcher'] as const;
export type SearchTags = (typeof SEARCH_TAGS)[number];

const QUERY_TAGS: Record<SearchTags, [open: string, close: string]> = {
  'search-r1': ['<search>', '</search>'],
  'r1-searcher': ['<|begin_of_query|>', '<|end_of_query|>'],
};

/**
 * The query of a turn: the last complete one in either convention (a model stops generating at its closing
 * tag, so there is one), trimmed; undefined when there is none or it is blank.
 */
export function findSearchQuery(text: string): { query: string; tags: SearchTags } | undefined {
  let found: { query: string; tags: SearchTags; at: number } | undefined;
  for (const tags of SEARCH_TAGS) {
    for (const span of taggedSpans(text, ...QUERY_TAGS[tags])) {
      const query = span.inner.trim();
      if (query !== '' && (!found || span.start > found.at)) found = { query, tags, at: span.start };
    }
  }
  return found && { query: found.query, tags: found.tags };
}

/** A retrieved passage, `contents` being its title line and its text, with its corpus id and score if known. */
export interface SearchDocument {
  id?: string;
  score?: number;
  contents: string;
}

/**
 * Retrieved passages as the model reads them, in the tags of the convention it asked in. Each passage is
 * `Doc i (Title: …) text`, the numbering and title line Search-R1's retriever output uses.
 */
export function formatDocuments(documents: readonly SearchDocument[], tags: SearchTags): string {
  const passages =
    documents.length === 0
      ? 'No passage matches this query.'
      : documents
          .map(({ contents }, index) => {
            const [title = '', ...text] = contents.split('\n');
            return `Doc ${index + 1} (Title: ${title}) ${text.join('\n')}`;
          })
          .join('\n');
  return tags === 'search-r1'
    ? `<information>${passages}</information>`
    : `<|begin_of_documents|>\n${passages}\n<|end_of_documents|>`;
}

/**
 * The final answer of a turn: the last `<answer>…</answer>` (Search-R1, verl's reward), else the content of the
 * last `\boxed{…}` with its braces balanced (R1-Searcher); undefined when there is neither.
 */
export function findFinalAnswer(text: string): string | undefined {
  return extractAnswerTag(text) ?? lastBoxed(text);
}

function lastBoxed(text: string): string | undefined {
  const start = text.lastIndexOf('\\boxed{');
  if (start < 0) return undefined;
  let depth = 0;
  for (let index = start + '\\boxed'.length; index < text.length; index++) {
    if (text[index] === '{') depth += 1;
    else if (text[index] === '}' && --depth === 0) return text.slice(start + '\\boxed{'.length, index).trim();
  }
  return undefined;
}
