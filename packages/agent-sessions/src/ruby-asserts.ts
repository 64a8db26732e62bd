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
 * Splits a Ruby test in MultiPL-E's shape:
 *
 *     require 'test/unit'
 *     class TestHumanEval < Test::Unit::TestCase
 *       def test_f
 *         candidate = method(:f)
 *         assert_equal(EXPECTED, candidate.call(…))
 *       end
 *     end
 *
 * whose EXPECTED and arguments are literals (numbers, strings without interpolation, symbols, true, false, nil,
 * arrays and hashes of them). Test::Unit's `assert_equal` checks `expected == actual`; both programs print values
 * through one serialiser (RUBY_REPORTER) whose text is equal exactly when that `==` holds for the literal's
 * types: numbers by value whatever their class (`1 == 1.0`; a float that is an integer prints as that integer,
 * exactly), NaN never equal, strings by their bytes (and their encoding unless both are ASCII), arrays element by
 * element, hashes as sets of entries whose keys compare as `eql?` does (`1` and `1.0` are two keys). A value of
 * any other class prints as `?Class`, which no literal prints: it fails (conservatively, where its own `==` might
 * have held), and the expected program refuses it (the test then keeps the marker path).
 *
 * A test is split only when every line is one of that frame's (comments and blank lines aside): anything else
 * could fail the test in a way the host would not see.
 */
export function splitRubyTest(testCode: string): SplitTest | undefined {
  const methods = new Set<string>();
  const parsed = scriptLines(testCode, /^#/, (line) => role(line, methods), /^rc(dna+e)+e$/);
  if (parsed === undefined) return undefined;
  return reportedSplit(
    parsed,
    RUBY_REPORTER,
    (site, value, strict) => `FuseboxReport.report(${site}, ${value}${strict ? ', true' : ''})`,
  );
}

/** Ruby tokens of one line: strings without interpolation, symbols, names, numbers, operators. */
const RUBY_TOKEN =
  /\s+|"(?:[^"\\#]|\\[\s\S]|#(?![{$@]))*"|'(?:[^'\\]|\\[\s\S])*'|:[A-Za-z_]\w*|[A-Za-z_]\w*[?!]?|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?|=>|::|[^\s]/;

function role(line: string, methods: Set<string>): LineRole | undefined {
  if (/^require\s*\(?\s*(['"])test\/unit\1\s*\)?$/.test(line)) return { letter: 'r' };
  // The test's own names (its class, its methods) could spell its answers: the model's program gets others.
  if (/^class\s+[A-Z]\w*\s*<\s*Test::Unit::TestCase$/.test(line))
    return { letter: 'c', becomes: 'class FuseboxTestCase < Test::Unit::TestCase' };
  const method = /^def\s+(test_\w*)(?:\s*\(\s*\))?$/.exec(line);
  if (method !== null) {
    // A second method of the same name replaces the first, whose asserts would then never run.
    if (methods.has(method[1] as string)) return undefined;
    methods.add(method[1] as string);
    return { letter: 'd', becomes: `  def test_${methods.size}` };
  }
  if (/^candidate\s*=\s*method\(\s*:[A-Za-z_]\w*[?!]?\s*\)$/.test(line)) return { letter: 'n' };
  if (line === 'end') return { letter: 'e' };
  const tokens = lineTokens(line, RUBY_TOKEN);
  if (tokens?.[0]?.text !== 'assert_equal' || tokens[1]?.start !== tokens[0].end) return undefined;
  const args = bracketArguments(tokens.slice(1));
  if (args?.length !== 2 || tokens[1].text !== '(') return undefined;
  const [expected, actual] = args as [Token[], Token[]];
  if (!isLiteral(expected) || !candidateCall(actual, ['candidate', '.', 'call'], isLiteral)) return undefined;
  return { letter: 'a', site: { actual: tokensText(line, actual), expected: tokensText(line, expected) } };
}

/** Ruby literals: strings, symbols, numbers, true, false, nil, in arrays and hashes. */
const LITERAL: LiteralTokens = {
  constant: /^(?:["'\d]|:\w)/,
  names: new Set(['true', 'false', 'nil']),
  punctuation: ['[', ']', '{', '}', '(', ')', ',', '=>', '-', '+'],
};
const isLiteral = (tokens: readonly Token[]) => isLiteralIn(LITERAL, tokens);

/**
 * The serialiser both programs define (see the header for its rule). `strict` (the expected program) raises on
 * a value it has no text for instead of printing `?Class`.
 */
const RUBY_REPORTER = String.raw`module FuseboxReport
  def self.report(site, value, strict = false)
    text = put(value, strict, 0)
    STDOUT.write("\nfusebox-report #{site} #{text}\n")
    STDOUT.flush
  end

  def self.unknown(value, strict)
    raise ArgumentError, "fusebox: no report for a #{value.class}" if strict
    "?#{value.class}"
  end

  def self.put(value, strict, depth)
    return unknown(value, strict) if depth > 64
    case value
    when nil, true, false then value.inspect
    when Integer then value.to_s
    when Float then number(value, strict)
    when String then string(value)
    when Symbol then ":#{string(value.to_s)}"
    when Array then "[#{value.map { |item| put(item, strict, depth + 1) }.join(',')}]"
    when Hash
      return unknown(value, strict) if value.compare_by_identity?
      entries = value.map { |k, v| "#{key(k, strict, depth + 1)}=>#{put(v, strict, depth + 1)}" }
      "{#{entries.sort.join(',')}}"
    else unknown(value, strict)
    end
  end

  def self.number(value, strict)
    if value.nan?
      raise ArgumentError, 'fusebox: no report for NaN' if strict
      return 'nan'
    end
    return value.positive? ? 'inf' : '-inf' if value.infinite?
    value == value.floor ? value.to_i.to_s : value.to_s
  end

  def self.string(value)
    bytes = value.b.each_byte.map { |b| b.between?(0x20, 0x7e) && b != 0x22 && b != 0x5c ? b.chr : format('\\x%02x', b) }
    tag = value.empty? || value.ascii_only? ? '' : "(#{value.encoding.name})"
    "s#{tag}\"#{bytes.join}\""
  end

  def self.key(value, strict, depth)
    return unknown(value, strict) if depth > 64
    case value
    when Integer then "i#{value}"
    when Float
      return unknown(value, strict) if value.nan?
      "f#{value.zero? ? 0.0 : value}"
    when String then string(value)
    when Symbol then ":#{string(value.to_s)}"
    when nil, true, false then value.inspect
    when Array then "[#{value.map { |item| key(item, strict, depth + 1) }.join(',')}]"
    else unknown(value, strict)
    end
  end
end
`;
