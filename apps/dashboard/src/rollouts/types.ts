import type { AppRouter } from '@fusebox/api-router';
import type { inferRouterOutputs } from '@trpc/server';

type Outputs = inferRouterOutputs<AppRouter>['rollouts'];

export type Sample = Outputs['sample'];

/** The executions joined to one tool call of a sample. */
export type ToolCallRuns = inferRouterOutputs<AppRouter>['executions']['forToolCalls'][number];

/** A sample as the export reads it: whole texts, extras apart. */
export type ExportedSample = inferRouterOutputs<AppRouter>['rolloutAnalysis']['exportPage']['items'][number];
