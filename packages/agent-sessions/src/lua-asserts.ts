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
 * Splits a Lua test in MultiPL-E's shape:
 *
 *     lu = require('luaunit')
 *     function test_humaneval()
 *     local candidate = f
 *         lu.assertEquals(candidate(…), EXPECTED)
 *     end
 *     os.exit(lu.LuaUnit.run())
 *
 * whose EXPECTED and arguments are literals (numbers, strings, true, false, nil, and table constructors of them,
 * `{1, 2}`, `{["a"] = 1}`). luaunit's `assertEquals` compares tables key by key, deeply (values of other types
 * with `==`, numbers by value: `1 == 1.0`); both programs print values through one serialiser (LUA_REPORTER)
 * whose text is equal exactly when that holds for literals: numbers by value (a float that is an integer prints
 * as that integer, exactly; NaN never equal), strings by their bytes, tables as sets of entries sorted by key.
 * Tables with a metatable, or a table, function, userdata or thread anywhere, print as `?type`, which no literal
 * prints: they fail, and the expected program refuses them (the test then keeps the marker path).
 *
 * A test is split only when every line is one of that frame's (comments and blank lines aside): anything else
 * could fail the test in a way the host would not see.
 */
export function splitLuaTest(testCode: string): SplitTest | undefined {
  const functions = new Set<string>();
  const parsed = scriptLines(testCode, /^--(?!\[=*\[)/, (line) => role(line, functions), /^r(dna+e)+x$/);
  if (parsed === undefined) return undefined;
  // In parentheses, a call gives its first result only, as it does as assertEquals's first argument.
  return reportedSplit(
    parsed,
    LUA_REPORTER,
    (site, value, strict) => `fusebox_report(${site}, (${value})${strict ? ', true' : ''})`,
  );
}

/** Lua tokens of one line: comments, short strings, names, numbers, operators. */
const LUA_TOKEN =
  /\s+|--.*|"(?:[^"\\\n]|\\[\s\S])*"|'(?:[^'\\\n]|\\[\s\S])*'|[A-Za-z_]\w*|0[xX][\da-fA-F.]+(?:[pP][+-]?\d+)?|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|\.\.\.?|==|~=|<=|>=|\/\/|::|[^\s]/;

function role(line: string, functions: Set<string>): LineRole | undefined {
  if (/^(?:local\s+)?lu\s*=\s*require\s*\(?\s*(['"])luaunit\1\s*\)?$/.test(line)) return { letter: 'r' };
  // luaunit runs the global functions whose name starts with "test", in any case.
  const test = /^function\s+(test\w*)\s*\(\s*\)$/i.exec(line);
  if (test !== null) {
    if (functions.has(test[1] as string)) return undefined;
    functions.add(test[1] as string);
    // Its name could spell the test's answers: the model's program gets another.
    return { letter: 'd', becomes: `function test_${functions.size}()` };
  }
  if (/^local\s+candidate\s*=\s*[A-Za-z_]\w*$/.test(line)) return { letter: 'n' };
  if (line === 'end') return { letter: 'e' };
  if (/^os\.exit\s*\(\s*lu\.LuaUnit\.run\s*\(\s*\)\s*\)$/.test(line)) return { letter: 'x' };
  const tokens = lineTokens(line, LUA_TOKEN);
  if (
    tokens === undefined ||
    tokens
      .slice(0, 3)
      .map(({ text }) => text)
      .join('') !== 'lu.assertEquals' ||
    tokens[3]?.text !== '('
  )
    return undefined;
  const args = bracketArguments(tokens.slice(3));
  if (args?.length !== 2) return undefined;
  const [actual, expected] = args as [Token[], Token[]];
  if (!isLiteral(expected) || !candidateCall(actual, ['candidate'], isLiteral)) return undefined;
  return { letter: 'a', site: { actual: tokensText(line, actual), expected: tokensText(line, expected) } };
}

/** Lua literals: strings, numbers, true, false, nil, in table constructors. */
const LITERAL: LiteralTokens = {
  constant: /^["'\d]|^\.\d/,
  names: new Set(['true', 'false', 'nil']),
  punctuation: ['{', '}', '[', ']', '(', ')', ',', ';', '=', '-'],
};
const isLiteral = (tokens: readonly Token[]) => isLiteralIn(LITERAL, tokens);

/**
 * The serialiser both programs define (see the header for its rule). `strict` (the expected program) raises an
 * error on a value it has no text for instead of printing `?type`.
 */
const LUA_REPORTER = String.raw`local fusebox_report
do
  local format, type, next, floor, huge = string.format, type, next, math.floor, math.huge
  local function unknown(value, strict)
    if strict then error('fusebox: no report for a ' .. type(value)) end
    return '?' .. type(value)
  end
  local function number(value, strict)
    if value ~= value then
      if strict then error('fusebox: no report for NaN') end
      return 'nan'
    end
    if value == huge then return 'inf' end
    if value == -huge then return '-inf' end
    if math.type(value) == 'integer' then return format('%d', value) end
    if value == 0 then return '0' end
    if value == floor(value) then return format('%.0f', value) end
    return format('%.17g', value)
  end
  local function quoted(value)
    local escaped = value:gsub('[%c"\\\128-\255]', function(c) return format('\\%03d', c:byte()) end)
    return '"' .. escaped .. '"'
  end
  local function put(value, strict, depth)
    local kind = type(value)
    if kind == 'nil' or kind == 'boolean' then return kind == 'nil' and 'nil' or (value and 'true' or 'false') end
    if kind == 'number' then return number(value, strict) end
    if kind == 'string' then return quoted(value) end
    if kind ~= 'table' or getmetatable(value) ~= nil or depth > 64 then return unknown(value, strict) end
    local entries = {}
    for key, item in next, value do
      local keyKind = type(key)
      if keyKind ~= 'number' and keyKind ~= 'string' and keyKind ~= 'boolean' then return unknown(key, strict) end
      entries[#entries + 1] = put(key, strict, depth + 1) .. '=' .. put(item, strict, depth + 1)
    end
    table.sort(entries)
    return '{' .. table.concat(entries, ',') .. '}'
  end
  fusebox_report = function(site, value, strict)
    local text = put(value, strict, 0)
    io.stdout:write('\nfusebox-report ', site, ' ', text, '\n')
    io.stdout:flush()
  end
end
`;
