import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './reward-episodes';

// A test's stored detail is the run's own output (or, for a split test, the host's failure lines and the output's
// end). Postgres's jsonb holds neither a NUL character nor an unpaired UTF-16 surrogate, and the model chooses
// the output: a detail holding one must still be stored, or /compute_reward answers 500 (verl reads 0), the
// reward's runs go unrecorded (their execution rows share the failed transaction), and every later
// /compute_reward runs every test again.
const MARKER_TASK = { name: 'detail-nul', language: 'perl' };
// A split Perl test (MultiPL-E's frame): its malformed report lines are cut at 100 UTF-16 units.
const SPLIT_TASK = { name: 'detail-surrogate', language: 'perl' };
const STORED_MARKER_TASK = {
  ...MARKER_TASK,
  prompt: 'Write add(a, b).',
  session_mode: 'fresh',
  tests: [{ name: 'add', code: 'add(2, 3);' }],
};
const STORED_SPLIT_TASK = {
  ...SPLIT_TASK,
  prompt: 'Write add(a, b).',
  session_mode: 'fresh',
  tests: [
    {
      name: 'add',
      code:
        'use Test::Deep;\n\n\nsub testhumaneval {\n    my $candidate = \\&add;\n' +
        '        if(eq_deeply($candidate->(2, 3),5)) {\n        print "ok!" }else{\n        exit 1;\n        }\n' +
        '}\n\ntesthumaneval();\n',
    },
  ],
};
const { episode } = useRewardSessions([STORED_MARKER_TASK, STORED_SPLIT_TASK]);

describe('a stored detail the model chose', { timeout: 180_000 }, () => {
  it('is stored when a passing run printed a NUL character', async () => {
    const run = await episode(MARKER_TASK, ['sub add { print "a\\0b\\n"; return $_[0] + $_[1]; }']);
    expect(run.reward).toMatchObject({ reward: 1 });
    expect(run.detail[0]?.passed).toBe(true);
  });

  it('is stored when a malformed report line is cut inside a surrogate pair', async () => {
    // 15 + 84 units, then an emoji's two: the cut at 100 keeps its high surrogate alone.
    const run = await episode(SPLIT_TASK, [
      'sub add { print "\\nfusebox-report " . ("x" x 84) . "\\xF0\\x9F\\x98\\x80\\n"; return $_[0] + $_[1]; }',
    ]);
    expect(run.reward).toMatchObject({ reward: 0 });
    expect(run.detail[0]?.passed).toBe(false);
  });
});
