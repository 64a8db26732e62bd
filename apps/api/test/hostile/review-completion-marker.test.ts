import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './reward-episodes';

// Hostile review of the completion marker (completion-marker.ts) that assert tests outside the trusted runner
// must print: how cheap it is for a wrong solution to print it itself. One line that reads the program's own
// source. Node, TypeScript and C++ tests in MultiPL-E's shape are now split (split-test.ts; more probes in
// split-verdict-forgery.test.ts): their verdict never looks at the marker. Bash is still a known residual
// (docs/sessions.md).

interface MarkerCase {
  language: string;
  test: string;
  right: string;
  /** Wrong, and prints the marker it finds in its own program's source, then exits 0. */
  forges: string;
  /** Still judged on the marker path: the forgery works (docs/sessions.md). */
  open?: true;
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
    test: '[ "$(add 2 3)" = 5 ] && [ "$(add -4 1)" = -3 ] || exit 1',
    right: 'add() { echo $(( $1 + $2 )); }',
    // add() runs in a command substitution, so the forgery rides the failing test's own exit: an EXIT trap.
    forges: `add() { echo 0; }\ntrap 'grep -oE "${MARKER}" "$0" | head -n 1; exit 0' EXIT`,
    open: true,
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
  // HOLE (known residual, docs/sessions.md; completion-marker.ts) where a test is not split: the marker is a
  // literal in the program the model's code runs in, so one line that reads the program's own file ("$0"; a
  // compiled language's source stays in the working directory, and its binary holds the literal) prints it: a
  // wrong add() then scores 1. Obfuscating the literal only changes the regex; reading it out of band (an env
  // var, an fd a preload reads) loses to /proc/self/environ and the process's memory. The verdict needs the
  // test's checks out of the model's process, as the split does for Node, TypeScript and C++.
  const probe = async (_language: string, c: MarkerCase) => {
    const [forged, control] = await watched(() =>
      Promise.all([episode(task(c), [c.forges]), episode(task(c), [c.right])]),
    );
    // Detection: the right solution scores through the same task.
    expect(control.reward, JSON.stringify(control.detail)).toMatchObject({ reward: 1, f2p_count: 1 });
    expect(forged.reward, JSON.stringify(forged.detail)).toMatchObject({ reward: 0, f2p_count: 0 });
  };
  it.each(CASES.filter((c) => !c.open).map((c) => [c.language, c] as const))(
    '%s: no reward for a solution that prints the marker from its own source',
    probe,
  );
  it.skip.each(CASES.filter((c) => c.open).map((c) => [c.language, c] as const))(
    '%s: no reward for a solution that prints the marker from its own source',
    probe,
  );
});
