import { MAX_TERM_LENGTH, words } from './search-terms';

/** A parsed search box: what every matching sample must contain. */
export interface SearchQuery {
  /** Lowercase words, each matching the index words (`rollout_term`) it begins: `nameerr` finds `NameError`. */
  terms: string[];
  /**
   * Lowercase strings a match must contain verbatim, ignoring case: quoted phrases, and anything typed with
   * punctuation (`print(total`, `220000.0`), which the words alone would over-match.
   */
  phrases: string[];
}

const CHUNK = /"([^"]*)"|(\S+)/g;

/**
 * Parses what a user typed into the rollout search box. Words match the words they begin, ignoring case;
 * `"quoted text"` and words with punctuation must also appear verbatim. Returns no terms when nothing
 * searchable was typed.
 *
 * @example
 * parseSearchQuery('ZeroDivisionError "print(x"'); // { terms: ['zerodivisionerror', 'print', 'x'], phrases: ['print(x'] }
 */
export function parseSearchQuery(text: string): SearchQuery {
  const terms = new Set<string>();
  const phrases = new Set<string>();
  for (const match of text.matchAll(CHUNK)) {
    const quoted = match[1] !== undefined;
    const chunk = (match[1] ?? match[2] ?? '').trim().toLowerCase();
    const chunkWords = words(chunk);
    if (chunkWords.length === 0) continue;
    for (const word of chunkWords) if (word.length <= MAX_TERM_LENGTH) terms.add(word);
    if (quoted || chunkWords.length !== 1 || chunkWords[0] !== chunk) phrases.add(chunk);
  }
  return { terms: [...terms], phrases: [...phrases] };
}
