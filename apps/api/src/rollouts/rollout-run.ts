// The rollout import moved to @fusebox/rollouts (issue 18). This type stays reachable here only for
// src/demo/run-demo.ts, which is moving to apps/demo in a change of its own: delete this file with that move.
export type { RunRef } from '@fusebox/rollouts';
