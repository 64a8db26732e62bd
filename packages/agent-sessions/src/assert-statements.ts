import { type Token, tokenize, withoutComments } from './c-like-tokens';
import type { Check, SplitSite } from './split-test';

/** An assert statement of a C++ or Java test, split: where it is, and the text of its two halves. */
export interface AssertStatement extends SplitSite {
  /** What the test computes from the model's code; it goes in the model's program. */
  actual: string;
  /** The literal it is checked against; it goes in the expected program only. */
  expected: string;
  start: number;
  end: number;
  /** The statement's last token (its `;`), where the scan goes on. */
  lastToken: number;
}

/**
 * Every `assert` statement of a test (a token `isAssert` names: Rust's `assert_eq` too), each split by `siteAt`;
 * undefined when one is no shape it splits, when `refused` says a token outside them could fail the test some
 * other way, or when there is none.
 */
export function assertStatements<S extends AssertStatement>(
  code: string,
  siteAt: (code: string, tokens: readonly Token[], at: number) => S | undefined,
  refused: (tokens: readonly Token[], at: number) => boolean,
  isAssert: (text: string) => boolean = (text) => text === 'assert',
): S[] | undefined {
  if (code.includes('#<INSERT>')) return undefined;
  const tokens = tokenize(code);
  if (tokens === undefined) return undefined;
  const sites: S[] = [];
  for (let index = 0; index < tokens.length; index++) {
    if (isAssert((tokens[index] as Token).text)) {
      const site = siteAt(code, tokens, index);
      if (site === undefined) return undefined;
      sites.push(site);
      index = site.lastToken;
    } else if (refused(tokens, index)) return undefined;
  }
  return sites.length === 0 ? undefined : sites;
}

/**
 * The test with each assert statement replaced by the report of its actual value that `report` writes, and its
 * comments blanked (a comment may hold the answers, and the model's program can read its own source).
 */
export function withReports(
  code: string,
  sites: readonly AssertStatement[],
  report: (site: number, actual: string) => string,
): string {
  let harness = code;
  for (const [index, site] of [...sites.entries()].reverse())
    harness = `${harness.slice(0, site.start)}${report(index, site.actual)}${harness.slice(site.end)}`;
  return withoutComments(harness) ?? harness;
}

/** Where the statement from token `first` to token `last` (its `;`) is: its line, its text and its span. */
export function statementPlace(
  code: string,
  tokens: readonly Token[],
  first: number,
  last: number,
): Pick<AssertStatement, 'line' | 'source' | 'start' | 'end' | 'lastToken'> {
  const start = (tokens[first] as Token).start;
  const end = (tokens[last] as Token).end;
  return {
    line: code.slice(0, start).split('\n').length,
    source: code.slice(start, end),
    start,
    end,
    lastToken: last,
  };
}

/**
 * Whether a site's check held: an equality check by whether the report equals the expected value (as the
 * language's comparison would), a truth check by the report's truth; with what to show when it did not.
 */
export function siteHolds(
  site: AssertStatement & { check: '==' | '!=' | 'truthy' | 'falsy' },
  actual: string,
  equal: boolean,
  truth: { truthy: boolean; falsy: boolean },
): Check {
  const holding = site.check === '==' ? equal : site.check === '!=' ? !equal : truth[site.check];
  return holding
    ? { holds: true }
    : { holds: false, why: `failed: ${site.actual} = ${actual.slice(0, 200)}` };
}
