import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type JsonValue, pythonJsonDumps } from '../python-json';
import type { Trajectory } from '../rollout/episode';
import { trajectoryChatText } from './chat-text';

/**
 * One line of a verl rollout dump, with verl's keys first and in verl's order.
 *
 * @example
 * const line: VerlDumpLine = verlDumpLine(trajectory, 1);
 */
export type VerlDumpLine = {
  input: string;
  output: string;
  gts: JsonValue;
  score: number;
  step: number;
  request_id: string;
} & Record<string, JsonValue>;

/**
 * The dump line verl's trainer would write for a trajectory: `input`, `output`, `gts`, `score`, `step`, then the
 * extras (`request_id` and the request's `extra`, such as `acc` or `pred`).
 *
 * @example
 * verlDumpLine(trajectory, 1).request_id === trajectory.requestId; // true
 */
export function verlDumpLine(trajectory: Trajectory, step: number): VerlDumpLine {
  const { input, output } = trajectoryChatText(trajectory);
  return {
    input,
    output,
    gts: trajectory.groundTruth,
    score: trajectory.score,
    step,
    ...trajectory.extra,
    request_id: trajectory.requestId,
  };
}

/**
 * Writes `{dir}/{step}.jsonl` exactly as verl's `trainer.rollout_data_dir` does: one line per trajectory in
 * Python's JSON style (`", "` and `": "`, non-ASCII kept), lines joined by newlines with one at the end, the
 * directory created when missing. verl's `rollout_viewer.py` and `fusebox rollouts import` read it. Returns the
 * path.
 *
 * @example
 * const file = await writeVerlDump('/data/rollouts', 3, trajectories); // '/data/rollouts/3.jsonl'
 */
export async function writeVerlDump(
  dir: string,
  step: number,
  trajectories: readonly Trajectory[],
  options: { signal?: AbortSignal } = {},
): Promise<string> {
  if (typeof dir !== 'string' || dir === '') throw new TypeError('expected dir to be a directory path');
  if (!Number.isInteger(step) || step < 0)
    throw new TypeError(`expected step to be a non-negative integer, got ${String(step)}`);
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${step}.jsonl`);
  const lines = trajectories.map((trajectory) => pythonJsonDumps(verlDumpLine(trajectory, step)));
  await writeFile(file, `${lines.join('\n')}\n`, { signal: options.signal });
  return file;
}
