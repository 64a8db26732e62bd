import { hostname } from 'node:os';

/** Which API process this is (host:pid): in execution rows, and as the holder name of its limiter permits. */
export const WORKER_ID = `${hostname()}:${process.pid}`;
