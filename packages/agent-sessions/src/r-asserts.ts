import { type Token, closingBracket } from './c-like-tokens';
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
 * Splits an R test in MultiPL-E's shape:
 *
 *     test_humaneval <- function() {
 *         candidate <- f
 *         if(!identical(candidate(…), EXPECTED)){quit('no', 1)}
 *     }
 *     test_humaneval()
 *
 * whose EXPECTED and arguments are literals (numbers, strings, TRUE, FALSE, NULL, NA and its typed forms, Inf,
 * NaN, `c(…)` and `list(…)` of them, named or not). `identical` is R's exact comparison; both programs print
 * values through one serialiser (R_REPORTER) whose text is equal exactly when `identical` (with its defaults)
 * holds for such values: the type first (`1L` is not `1`), then each element (doubles by value, so `0` is `-0`,
 * NA apart from NaN; strings by their UTF-8 bytes, NA apart from "NA"), then the attributes as a set (names,
 * classes, dimensions: values themselves). Values of other types (functions, environments, complex, raw) print
 * as `?type`, which no literal prints: they fail, and the expected program refuses them (the test then keeps the
 * marker path). MultiPL-E's later form, `stopifnot(isTRUE(all.equal(…)))`, compares with a tolerance, which is
 * no text equality: it keeps the marker path.
 *
 * A test is split only when every line is one of that frame's (comments and blank lines aside): anything else
 * could fail the test in a way the host would not see.
 */
export function splitRTest(testCode: string): SplitTest | undefined {
  const parsed = scriptLines(testCode, /^#/, role, /^dna+ex$/);
  if (parsed === undefined) return undefined;
  return reportedSplit(
    parsed,
    R_REPORTER,
    (site, value, strict) => `.fusebox_report(${site}L, ${value}${strict ? ', TRUE' : ''})`,
  );
}

/** R tokens of one line: comments, strings, numbers, names, operators. */
const R_TOKEN =
  /\s+|#.*|"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\]|\\[\s\S])*'|0[xX][\da-fA-F]+L?|\d+\.?\d*(?:[eE][+-]?\d+)?L?|\.\d+(?:[eE][+-]?\d+)?L?|[A-Za-z.][\w.]*|<<-|<-|->|==|!=|<=|>=|&&|\|\||[^\s]/;

/** What an assert line may do when its check fails: end R with status 1, as MultiPL-E writes it. */
const FAILURE = new Set([
  "{quit('no',1)}",
  "quit('no',1)",
  "{quit(save='no',status=1)}",
  "quit(save='no',status=1)",
]);

function role(line: string): LineRole | undefined {
  if (/^test_humaneval\s*<-\s*function\s*\(\s*\)\s*\{$/.test(line)) return { letter: 'd' };
  if (/^candidate\s*<-\s*[A-Za-z.][\w.]*$/.test(line)) return { letter: 'n' };
  if (line === '}') return { letter: 'e' };
  if (/^test_humaneval\s*\(\s*\)$/.test(line)) return { letter: 'x' };
  const tokens = lineTokens(line, R_TOKEN);
  if (
    tokens === undefined ||
    tokens
      .slice(0, 4)
      .map(({ text }) => text)
      .join('') !== 'if(!identical'
  )
    return undefined;
  // The condition's parenthesis closes after identical's: the rest of the line is what a failure does.
  // Unclosed, it is the line's length: no failure follows, and the line is refused below.
  const call = closingBracket(tokens, 1);
  const failure = tokens
    .slice(call + 1)
    .map(({ text }) => text.replaceAll('"', "'"))
    .join('');
  if (!FAILURE.has(failure) || closingBracket(tokens, 4) !== call - 1) return undefined;
  const args = bracketArguments(tokens.slice(4, call));
  if (args?.length !== 2) return undefined;
  const [actual, expected] = args as [Token[], Token[]];
  if (!isLiteral(expected) || !candidateCall(actual, ['candidate'], isLiteral)) return undefined;
  return { letter: 'a', site: { actual: tokensText(line, actual), expected: tokensText(line, expected) } };
}

/**
 * R literals: numbers, strings, `c`, `list`, TRUE, FALSE, NULL, NA and its typed forms, Inf, NaN, signs, and
 * names that name an element (`list(a = 1)`: an argument's name, not a variable).
 */
const LITERAL: LiteralTokens = {
  constant: /^["'\d]|^\.\d/,
  names: new Set([
    'c',
    'list',
    'TRUE',
    'FALSE',
    'NULL',
    'NA',
    'NA_integer_',
    'NA_real_',
    'NA_character_',
    'Inf',
    'NaN',
  ]),
  punctuation: ['(', ')', ',', '=', '-', '+'],
  named: (tokens, index) =>
    tokens[index + 1]?.text === '=' && ['(', ','].includes(tokens[index - 1]?.text ?? ''),
};
const isLiteral = (tokens: readonly Token[]) => isLiteralIn(LITERAL, tokens);

/**
 * The serialiser both programs define (see the header for its rule). `strict` (the expected program) stops on a
 * value it has no text for instead of printing `?type`.
 */
const R_REPORTER = String.raw`.fusebox_report <- local({
  unknown <- function(value, strict) {
    if (strict) stop(paste('fusebox: no report for a', typeof(value)))
    paste0('?', typeof(value))
  }
  quoted <- function(text) {
    if (is.na(text)) return('NA')
    bytes <- as.integer(charToRaw(enc2utf8(text)))
    out <- sprintf('\\x%02x', bytes)
    plain <- bytes >= 0x20 & bytes <= 0x7e & bytes != 0x22 & bytes != 0x5c
    out[plain] <- vapply(bytes[plain], intToUtf8, '')
    paste0('"', paste(out, collapse = ''), '"')
  }
  doubles <- function(x) {
    out <- sprintf('%.17g', x)
    out[!is.na(x) & x == 0] <- '0'
    out
  }
  put <- function(x, strict, depth) {
    if (depth > 64) return(unknown(x, strict))
    items <- function(values) paste(values, collapse = ',')
    body <- switch(typeof(x),
      'NULL' = 'NULL',
      logical = {
        out <- vapply(x, function(b) if (is.na(b)) 'NA' else if (b) 'T' else 'F', '', USE.NAMES = FALSE)
        paste0('l(', items(out), ')')
      },
      integer = paste0('i(', items(sprintf('%d', x)), ')'),
      double = paste0('d(', items(doubles(x)), ')'),
      character = paste0('s(', items(vapply(x, quoted, '', USE.NAMES = FALSE)), ')'),
      list = paste0('L(', items(vapply(x, put, '', strict = strict, depth = depth + 1, USE.NAMES = FALSE)), ')'),
      NULL)
    if (is.null(body)) return(unknown(x, strict))
    attrs <- attributes(x)
    if (length(attrs) > 0) {
      keys <- sort(names(attrs), method = 'radix')
      pairs <- vapply(keys, function(key) paste0(quoted(key), '=', put(attrs[[key]], strict, depth + 1)), '', USE.NAMES = FALSE)
      body <- paste0(body, '@{', items(pairs), '}')
    }
    body
  }
  function(site, value, strict = FALSE) {
    text <- put(value, strict, 0)
    cat('\nfusebox-report ', sprintf('%d', site), ' ', text, '\n', sep = '')
    flush(stdout())
  }
})
`;
