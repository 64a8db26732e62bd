import { describe, expect, it } from 'vitest';
import { useRewardSessions } from './hostile/reward-episodes';

// A failed test's stored detail is cut to 2,000 characters. A toolchain that crashes says why at the start of
// a long dump (a Go runtime's fatal error, then every goroutine) and a failed assert at the end: both are kept.
const TASK = { name: 'detail-head-and-tail', language: 'perl' };
const STORED = {
  ...TASK,
  prompt: 'Write add(a, b).',
  session_mode: 'fresh',
  tests: [{ name: 'add', code: 'add(2, 3);' }],
};
const { episode } = useRewardSessions([STORED]);

describe("a failed test's stored detail", { timeout: 120_000 }, () => {
  it('keeps the start and the end of a long output', async () => {
    const failed = await episode(TASK, [
      'sub add { print STDERR "why: the start of the output\\n", "x" x 6000, "\\n"; die "wrong: its end\\n"; }',
    ]);
    expect(failed.reward).toMatchObject({ reward: 0 });
    const detail = failed.detail[0]?.detail ?? '';
    expect(detail).toContain('why: the start of the output');
    expect(detail).toContain('wrong: its end');
    expect(detail).toContain('...(truncated)...');
    expect(detail.length).toBeLessThan(2200);
  });
});
