import type { ToolCallRecord, Trajectory } from '@fusebox/tools';

/**
 * The demo's kinds of episode: GSM8K with the code interpreter, coding tasks through sessions, and questions
 * answered by searching a corpus through `/retrieve`.
 */
export const TASK_FAMILIES = ['gsm8k', 'coding', 'search'] as const;
export type TaskFamily = (typeof TASK_FAMILIES)[number];

/** What the demo runs unless told otherwise: the families that exercise the sandbox. */
export const DEFAULT_TASK_FAMILIES: readonly TaskFamily[] = ['gsm8k', 'coding'];

/** Run outcomes that are answers, not errors: the code ran and printed what it printed. */
const ANSWERS = new Set(['success', 'wrong_answer']);
/** Outcomes of a call that never reached the sandbox. */
const NOT_RUN = new Set(['api_error', 'unsupported_language']);
/** Search outcomes that are answers: passages, or none matching. */
const SEARCH_ANSWERS = new Set(['success', 'no_results']);

/** Episodes, rewards and tool calls of one group of episodes (a task family, or a scripted case). */
export interface GroupTally {
  episodes: number;
  scoreSum: number;
  toolCalls: number;
  /** Tool calls that ran code in the sandbox. */
  executions: number;
  /** Client-side time of those calls, HTTP and queueing included. */
  executionMs: number;
  errors: number;
}

/** What one tool call came to: did it run code, and if something went wrong, what kind of thing. */
export function callOutcome(call: ToolCallRecord): { executed: boolean; error: string | null } {
  if (call.status === 'malformed') return { executed: false, error: 'malformed_call' };
  if (call.status === 'unknown_tool') return { executed: false, error: 'unknown_tool' };
  if (call.status === 'error') return { executed: false, error: 'tool_error' };
  // Sandbox tools report how the run went as metrics.status; the gsm8k checker runs nothing and reports none.
  const status = call.metrics.status;
  if (typeof status !== 'string') return { executed: false, error: null };
  // A search reports its status too, but runs no code.
  if (call.name === 'search') return { executed: false, error: SEARCH_ANSWERS.has(status) ? null : status };
  return { executed: !NOT_RUN.has(status), error: ANSWERS.has(status) ? null : status };
}

function emptyGroup(): GroupTally {
  return { episodes: 0, scoreSum: 0, toolCalls: 0, executions: 0, executionMs: 0, errors: 0 };
}

/**
 * The running totals the progress line and the summary show: episodes done, rewards, executions, and errors by
 * kind (timeout, runtime_error, malformed_call, …), overall, per task family and per scripted case.
 */
export class DemoTally {
  readonly startedAt = performance.now();
  readonly all = emptyGroup();
  readonly families = new Map<TaskFamily, GroupTally>();
  readonly cases = new Map<string, GroupTally>();
  readonly errors = new Map<string, number>();
  planned = 0;

  add(family: TaskFamily, trajectory: Trajectory): void {
    const scripted = trajectory.extra.case;
    const groups = [this.all, this.#group(this.families, family)];
    if (typeof scripted === 'string') groups.push(this.#group(this.cases, scripted));
    const kinds: string[] = [];
    if (trajectory.state === 'FAILED') kinds.push('episode_failed');
    else if (trajectory.error) kinds.push('reward_failed');
    let executions = 0;
    let executionMs = 0;
    for (const call of trajectory.toolCalls) {
      const { executed, error } = callOutcome(call);
      if (executed) {
        executions += 1;
        executionMs += call.durationMs;
      }
      if (error) kinds.push(error);
    }
    for (const kind of kinds) this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
    for (const group of groups) {
      group.episodes += 1;
      group.scoreSum += trajectory.score;
      group.toolCalls += trajectory.toolCalls.length;
      group.executions += executions;
      group.executionMs += executionMs;
      group.errors += kinds.length;
    }
  }

  /** Seconds since the demo began. */
  elapsedSeconds(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  #group<K>(groups: Map<K, GroupTally>, key: K): GroupTally {
    const group = groups.get(key) ?? emptyGroup();
    groups.set(key, group);
    return group;
  }
}
