import type { Token } from './c-like-tokens';
import {
  type LineRole,
  type LiteralTokens,
  bracketArguments,
  candidateCall,
  isLiteralIn,
  lineTokens,
  reportedSplit,
  scriptLines,
  tokensText,
} from './script-asserts';
import type { SplitTest } from './split-test';

/**
 * Splits a Perl test in MultiPL-E's shape:
 *
 *     use Test::Deep;
 *     sub testhumaneval {
 *         my $candidate = \&f;
 *             if(eq_deeply($candidate->(…),EXPECTED)) {
 *             print "ok!" }else{
 *             exit 1;
 *             }
 *     }
 *     testhumaneval();
 *
 * whose EXPECTED and arguments are literals (numbers, strings without interpolation, undef, array and hash
 * references of them). Test::Deep's `eq_deeply` compares plain scalars with `eq` (so `1.0` is `1`, and `0.1 + 0.2`
 * is `0.3` once both print with 15 digits), undef only with undef, array references element by element and hash
 * references key by key. Both programs print values through one serialiser (PERL_REPORTER) whose text is equal
 * exactly when that holds: a scalar by its string, character by character, arrays and hashes (keys sorted)
 * recursively. A blessed or other reference prints as `?class`, which no literal prints: it fails, and the
 * expected program refuses it (the test then keeps the marker path). The call is reported in list context, as
 * `eq_deeply`'s first argument is: a call that returns other than one value fails (where `eq_deeply` would have
 * compared its first two values). The split program leaves out `use Test::Deep`, which it no longer calls.
 *
 * A test is split only when every line is one of that frame's (comments and blank lines aside): anything else
 * could fail the test in a way the host would not see.
 */
export function splitPerlTest(testCode: string): SplitTest | undefined {
  let previous = '';
  const parsed = scriptLines(
    testCode,
    /^#/,
    (line) => {
      const found = role(line, previous);
      previous = found?.letter ?? '';
      return found;
    },
    /^udn(apqe)+ex$/,
  );
  if (parsed === undefined) return undefined;
  return reportedSplit(
    parsed,
    PERL_REPORTER,
    (site, value, strict) => `FuseboxReport::report(${site}, [${value}]${strict ? ', 1' : ''});`,
  );
}

/** Perl tokens of one line: strings without interpolation, variables, names, numbers, operators. */
const PERL_TOKEN =
  /\s+|#.*|"(?:[^"\\$@]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'|\$[A-Za-z_]\w*|[A-Za-z_]\w*|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|=>|->|::|[^\s]/;

/** `previous` is the letter of the line before: an assert's closing brace follows its `exit 1;`. */
function role(line: string, previous: string): LineRole | undefined {
  if (/^use\s+Test::Deep\s*;$/.test(line)) return { letter: 'u', becomes: '' };
  if (/^sub\s+testhumaneval\s*\{$/.test(line)) return { letter: 'd' };
  if (/^my\s+\$candidate\s*=\s*\\&[A-Za-z_]\w*\s*;$/.test(line)) return { letter: 'n' };
  if (/^print\s+"ok!"\s*;?\s*\}\s*else\s*\{$/.test(line)) return { letter: 'p', becomes: '' };
  if (/^exit\s*\(?\s*1\s*\)?\s*;$/.test(line)) return { letter: 'q', becomes: '' };
  if (line === '}') return previous === 'q' ? { letter: 'e', becomes: '' } : { letter: 'e' };
  if (/^testhumaneval\s*\(\s*\)\s*;$/.test(line)) return { letter: 'x' };
  const tokens = lineTokens(line, PERL_TOKEN);
  const head = tokens
    ?.slice(0, 4)
    .map(({ text }) => text)
    .join('');
  if (tokens === undefined || head !== 'if(eq_deeply(' || tokens.at(-1)?.text !== '{') return undefined;
  // `if ( eq_deeply (…) ) {`: the call's arguments end two tokens before the brace.
  if (tokens.at(-2)?.text !== ')') return undefined;
  const args = bracketArguments(tokens.slice(3, -2));
  if (args?.length !== 2) return undefined;
  const [actual, expected] = args as [Token[], Token[]];
  if (!isLiteral(expected) || !candidateCall(actual, ['$candidate', '->'], isLiteral)) return undefined;
  return { letter: 'a', site: { actual: tokensText(line, actual), expected: tokensText(line, expected) } };
}

/** Perl literals: numbers, strings without interpolation, undef, array and hash references, bare hash keys. */
const LITERAL: LiteralTokens = {
  constant: /^["'\d]|^\.\d/,
  names: new Set(['undef']),
  punctuation: ['[', ']', '{', '}', '(', ')', ',', '=>', '-', '+'],
  named: (tokens, index) => tokens[index + 1]?.text === '=>',
};
const isLiteral = (tokens: readonly Token[]) => isLiteralIn(LITERAL, tokens);

/**
 * The serialiser both programs define (see the header for its rule). `strict` (the expected program) dies on a
 * value it has no text for instead of printing `?class`.
 */
const PERL_REPORTER = String.raw`{
  package FuseboxReport;
  sub unknown {
    my ($value, $strict) = @_;
    die 'fusebox: no report for a ' . ref($value) . "\n" if $strict;
    return '?' . ref($value);
  }
  sub quoted {
    my ($text) = @_;
    $text =~ s/([^\x20-\x21\x23-\x5b\x5d-\x7e])/sprintf('\\x{%x}', ord($1))/ge;
    return qq{"$text"};
  }
  sub put {
    my ($value, $strict, $depth) = @_;
    return unknown($value, $strict) if $depth > 64;
    return 'undef' unless defined $value;
    my $kind = ref $value;
    return quoted("$value") if $kind eq '';
    return '[' . join(',', map { put($_, $strict, $depth + 1) } @$value) . ']' if $kind eq 'ARRAY';
    return '{' . join(',', map { quoted($_) . '=>' . put($value->{$_}, $strict, $depth + 1) } sort keys %$value) . '}'
      if $kind eq 'HASH';
    return unknown($value, $strict);
  }
  sub report {
    my ($site, $values, $strict) = @_;
    die "fusebox: not one value\n" if $strict && @$values != 1;
    my $text = @$values == 1 ? put($values->[0], $strict, 0) : '(' . scalar(@$values) . ' values)';
    local $| = 1;
    print STDOUT "\nfusebox-report $site $text\n";
  }
}
`;
