/**
 * What bounds the dashboard's answers, and how live its live views are: the host reads each from its
 * environment (apps/api/src/env.ts, `FUSEBOX_DASHBOARD_*`), so a deployment can tune them without a build.
 */
export interface DashboardLimits {
  /** Actions per page of a session's timeline (`sessions.byId`, `sessions.actions`), and errors shown. */
  sessionActionsPage: number;
  /** Characters of an action's content, code and observation in a timeline page; each says when it was cut. */
  actionPreviewChars: number;
  /** Characters of each of those texts when one action is asked for whole (`sessions.action`). */
  actionMaxChars: number;
  /** Samples one export of a step's list carries at most; the rest are left to the CLI. */
  exportMaxSamples: number;
  /** Lines a metric chart split by a text field draws: its commonest values. */
  chartSplitGroups: number;
  /** Samples of one GRPO group shown side by side. */
  groupMaxSamples: number;
  /** How often live views (lists of executions and sessions, a run's import) read what changed, in ms. */
  liveIntervalMs: number;
}
