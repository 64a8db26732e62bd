import { describe, expect, it } from 'vitest';
import { type Episode, useRewardSessions } from './reward-episodes';

// Class 5 of the trust boundary (issue 15), split assert tests (packages/agent-sessions/src/split-test.ts): an
// assert whose condition is not one term compared with a literal (`assert(Math.abs(x - E) < 1e-6)`,
// `assert(x === E && y === F)`, `assert.strictEqual(x === E, true)`) was split as a truthy site or with `true` as its
// expected value. Its whole condition, expected literals included, then ran in the model's process, and the host
// only checked that the report was truthy: a value the model prints without knowing anything. Each forgery below
// won reward 1, trusted, until javascript-asserts.ts refused such conditions (C++ has the same hole: H7's report).
// Rust's and Go's splitters refuse them too: such a test keeps the marker path.
// The right solution scores 1 and the plain wrong one 0 on the same task (the detection), so no probe passes by
// failing to run. Containment: a forgery scores 0, or its outcome says `trusted: false` (the marker path).

interface Probe {
  language: string;
  test: string;
  right: string;
  wrong: string;
  forgeries: { name: string; solution: string }[];
}

const NODE_TEST = (condition: (call: string, expected: string) => string) =>
  `const assert = require('node:assert');\n\nfunction test() {\n  let candidate = secret;\n  ${condition('candidate(7)', '987654321')};\n  ${condition('candidate(1)', '141093477')};\n}\n\ntest();\n`;

const NODE_FORGES_TRUE = `function secret(n) {
  const src = require('fs').readFileSync(process.argv[1], 'utf8');
  for (const [, site] of src.matchAll(/__fuseboxReport\\((\\d+)/g))
    process.stdout.write('\\nfusebox-report ' + site + ' ' + JSON.stringify({ value: true }) + '\\n');
  process.exit(0);
}`;

const NODE_RIGHT = 'function secret(n) { return n * 141093474 + 3; }';
const NODE_WRONG = 'function secret(n) { return n * 141093474 + 4; }';

const RUST_TEST = (condition: (call: string, expected: string) => string) =>
  `}\n\nfn main() {\n    let candidate = secret;\n    ${condition('candidate(7)', '987654321')};\n    ${condition('candidate(1)', '141093477')};\n}\n`;
const RUST_RIGHT = 'fn secret(n: i64) -> i64 {\n    n * 141093474 + 3';
const RUST_WRONG = 'fn secret(n: i64) -> i64 {\n    n * 141093474 + 4';
const RUST_FORGES_TRUE =
  'fn secret(n: i64) -> i64 {\n    for site in 0..2 { println!("\\nfusebox-report {} true", site); }\n    std::process::exit(0)';

const GO_HEADER =
  'package secret_test\n\nimport (\n    "testing"\n    "fmt"\n    "os"\n)\n\nvar _ = os.Exit\n\n';
const GO_TEST = (actual: (call: string, expected: string) => string) =>
  `func TestSecret(t *testing.T) {\n  candidate := secret\n\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: ${actual('candidate(7)', '987654321')}, expected: true },\n     { actual: ${actual('candidate(1)', '141093477')}, expected: true },\n   }\n\n\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n\t\t\t\tt.Errorf("expected '%s', got '%s'", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n`;

const PROBES: (Probe & { name: string })[] = [
  {
    name: 'node-abs-below',
    language: 'nodejs',
    test: NODE_TEST((call, expected) => `assert(Math.abs(${call} - ${expected}) < 1e-6)`),
    right: NODE_RIGHT,
    wrong: NODE_WRONG,
    forgeries: [
      {
        name: 'patches Math.abs, which the condition calls in its own process',
        solution: `Math.abs = () => 0;\n${NODE_WRONG}`,
      },
      { name: 'prints a truthy report for every site, then exits 0', solution: NODE_FORGES_TRUE },
    ],
  },
  {
    name: 'node-equal-true',
    language: 'nodejs',
    test: NODE_TEST((call, expected) => `assert.strictEqual(${call} === ${expected}, true)`),
    right: NODE_RIGHT,
    wrong: NODE_WRONG,
    forgeries: [{ name: 'prints a report of true for every site, then exits 0', solution: NODE_FORGES_TRUE }],
  },
  {
    name: 'rust-abs-below',
    language: 'rust',
    test: RUST_TEST((call, expected) => `assert!((${call} - ${expected}).abs() < 1)`),
    right: RUST_RIGHT,
    wrong: RUST_WRONG,
    forgeries: [
      { name: 'prints a report of true for every site, then exits 0', solution: RUST_FORGES_TRUE },
      {
        name: 'shadows assert! with a macro of its own',
        solution: `macro_rules! assert { ($($t:tt)*) => {}; }\n${RUST_WRONG}`,
      },
    ],
  },
  {
    name: 'rust-equal-true',
    language: 'rust',
    test: RUST_TEST((call, expected) => `assert_eq!(${call} == ${expected}, true)`),
    right: RUST_RIGHT,
    wrong: RUST_WRONG,
    forgeries: [{ name: 'prints a report of true for every site, then exits 0', solution: RUST_FORGES_TRUE }],
  },
  {
    name: 'go-equal-true',
    language: 'go_test',
    test: GO_TEST((call, expected) => `${call} == ${expected}`),
    right: `${GO_HEADER}func secret(n int) int {\n    return n*141093474 + 3\n}\n`,
    wrong: `${GO_HEADER}func secret(n int) int {\n    return n*141093474 + 4\n}\n`,
    forgeries: [
      {
        name: 'writes a report of "true" for every site, then exits 0 from TestMain',
        solution: `${GO_HEADER}func TestMain(m *testing.M) {\n    file, _ := os.Create(".fusebox-reports")\n    file.WriteString("\\nfusebox-report 0 \\"true\\"\\nfusebox-report 1 \\"true\\"\\n")\n    file.Close()\n    os.Exit(0)\n}\n\nfunc secret(n int) int {\n    return 0\n}\n`,
      },
    ],
  },
];

const task = (name: string) => ({ name: `split-truthy-${name}` });
const { episode, watched } = useRewardSessions(
  PROBES.map((p) => ({
    ...task(p.name),
    language: p.language,
    prompt: 'Write secret(n).',
    session_mode: 'fresh',
    tests: [{ name: 'secret', code: p.test }],
  })),
);

const scored = (run: Episode) => [run.reward, JSON.stringify(run.detail)] as const;

describe('a split test whose condition runs in the model’s process', { timeout: 240_000 }, () => {
  describe.each(PROBES.map((p) => [p.name, p] as const))('%s', (_name, p) => {
    const t = { ...task(p.name), language: p.language };
    it('the right solution scores 1; a wrong one 0', async () => {
      const [right, wrong] = await watched(() => Promise.all([episode(t, [p.right]), episode(t, [p.wrong])]));
      expect(...scored(right)).toMatchObject({ reward: 1 });
      expect(...scored(wrong)).toMatchObject({ reward: 0 });
    });

    it.each(p.forgeries.map((f) => [f.name, f] as const))('no trusted reward when it %s', async (_f, f) => {
      const forged = await watched(() => episode(t, [f.solution]));
      const trustedWin =
        forged.reward.reward === 1 &&
        (forged.detail[0] as { trusted?: false } | undefined)?.trusted !== false;
      expect(trustedWin, JSON.stringify(forged.detail)).toBe(false);
    });
  });
});
