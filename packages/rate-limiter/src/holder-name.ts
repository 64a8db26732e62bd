import { hostname } from 'node:os';

/** The default holder name: which host and process holds a permit, as stats show it. */
export function defaultHolderName(): string {
  return `${hostname()}:${process.pid}`;
}
