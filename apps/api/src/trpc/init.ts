import { initTRPC } from '@trpc/server';
import type { Services } from '../services';

/** The context of every procedure: the server's services. */
export type TrpcContext = Services;

const t = initTRPC.context<TrpcContext>().create();

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;
