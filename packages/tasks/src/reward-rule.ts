import type { RewardRule } from './task-settings';

/** How many of a session's tests passed, by group. */
export interface TestCounts {
  f2pCount: number;
  f2pTotal: number;
  p2pCount: number;
  p2pTotal: number;
}

/** The reward a task's rule gives for these counts; a task always has at least one fail-to-pass test. */
export function computeReward(rule: RewardRule, counts: TestCounts): number {
  const passed = counts.f2pCount + counts.p2pCount;
  const total = counts.f2pTotal + counts.p2pTotal;
  switch (rule) {
    case 'f2p':
      return counts.f2pCount / counts.f2pTotal;
    case 'all':
      return passed / total;
    case 'all_or_nothing':
      return passed === total ? 1 : 0;
  }
}
