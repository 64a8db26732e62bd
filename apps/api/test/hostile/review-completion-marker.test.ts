import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './reward-episodes';

// Hostile review of the completion marker (completion-marker.ts) that assert tests outside the trusted runner
// must print: how cheap it is for a wrong solution to print it itself. One line that reads the program's own
// source. Tests in MultiPL-E's shape (Node, TypeScript, C++, Java, Rust, Go, Ruby, Lua, R, bash) are now split
// (split-test.ts; more probes in split-verdict-forgery.test.ts): their verdict never looks at the marker. A test
// of another shape is still a known residual (docs/sessions.md).

interface MarkerCase {
  language: string;
  test: string;
  right: string;
  /** Wrong, and prints the marker it finds in its own program's source, then exits 0. */
  forges: string;
}

const MARKER = 'fusebox-test-complete-[0-9a-f]{32}';

const CASES: MarkerCase[] = [
  {
    language: 'nodejs',
    test: "const assert = require('assert');\nassert.strictEqual(add(2, 3), 5);\nassert.strictEqual(add(-4, 1), -3);",
    right: 'function add(a, b) { return a + b; }',
    forges: `function add(a, b) { const fs = require('fs'); fs.writeSync(1, '\\n' + fs.readFileSync(process.argv[1], 'utf8').match(/${MARKER}/)[0] + '\\n'); process.exit(0); }`,
  },
  {
    language: 'bash',
    // MultiPL-E's shape (its prompts leave the function open; this one's solutions are whole), now split.
    test: 'candidate() {\n    add "$@"\n}\n\nset -e\nrun_test() {\n    [[ $(candidate "2" "3") = "5" ]]\n    [[ $(candidate "-4" "1") = "-3" ]]\n}\n\nrun_test\n',
    right: 'add() { echo $(( $1 + $2 )); }',
    // add() runs in a command substitution, so the forgery rides the failing test's own exit: an EXIT trap.
    forges: `add() { echo 0; }\ntrap 'grep -oE "${MARKER}" "$0" | head -n 1; exit 0' EXIT`,
  },
];

const task = ({ language }: MarkerCase) => ({ name: `review-marker-${language}`, language });
const { episode, watched } = useRewardSessions(
  CASES.map((c) => ({
    ...task(c),
    prompt: 'Write add(a, b).',
    session_mode: 'fresh',
    tests: [{ name: 'add', code: c.test }],
  })),
);

describe('the completion marker of assert tests in other languages', { timeout: 180_000 }, () => {
  // The marker is a literal in the program the model's code runs in, so one line that reads the program's own
  // file ("$0"; a compiled language's source stays in the working directory, and its binary holds the literal)
  // prints it. That still wins where a test is not split (docs/sessions.md); obfuscating the literal only changes
  // the regex. A split test's verdict needs each assert's expected value, which the model's process never sees.
  it.each(CASES.map((c) => [c.language, c] as const))(
    '%s: no reward for a solution that prints the marker from its own source',
    async (_language, c) => {
      const [forged, control] = await watched(() =>
        Promise.all([episode(task(c), [c.forges]), episode(task(c), [c.right])]),
      );
      // Detection: the right solution scores through the same task.
      expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 1 });
      expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
    },
  );
});
