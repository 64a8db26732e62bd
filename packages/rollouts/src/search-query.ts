/** The text a search shows in a match: what to mark (match-ranges.ts), from the words and phrases of a query. */
export interface SearchQuery {
  /** Lowercase words, each matching the index words (`rollout_term`) it begins: `nameerr` finds `NameError`. */
  terms: string[];
  /**
   * Lowercase strings a match must contain verbatim, ignoring case: quoted phrases, and anything typed with
   * punctuation (`print(total`, `220000.0`), which the words alone would over-match.
   */
  phrases: string[];
}
