import type { AppRouter } from '@fusebox/api/trpc';
import type { inferRouterOutputs } from '@trpc/server';

type Outputs = inferRouterOutputs<AppRouter>['rollouts'];

export type Sample = Outputs['sample'];
export type SampleListItem = Outputs['samples']['items'][number];
export type SearchHit = Outputs['search']['items'][number];
export type StepStats = Outputs['steps'];
