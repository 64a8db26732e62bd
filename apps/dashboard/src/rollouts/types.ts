import type { AppRouter } from '@fusebox/api/trpc';
import type { inferRouterOutputs } from '@trpc/server';

type Outputs = inferRouterOutputs<AppRouter>['rollouts'];

export type Sample = Outputs['sample'];
