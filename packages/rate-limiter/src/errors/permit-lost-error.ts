import { LimiterError } from './limiter-error';

/**
 * A held permit was lost: the connection that held its slot died (the backend was terminated, Postgres
 * restarted, the network failed), so Postgres already gave the slot to someone else. This is the reason of
 * `Permit.signal`; work under the permit must stop, or the cluster would run more than `limit` at once.
 *
 * @example
 * permit.signal.addEventListener('abort', () => child.kill());
 * if (permit.signal.reason instanceof PermitLostError) console.warn(permit.signal.reason.message);
 */
export class PermitLostError extends LimiterError {
  readonly key: string;
  readonly slot: number;

  constructor(key: string, slot: number, options?: ErrorOptions) {
    const reason = options?.cause instanceof Error ? `: ${options.cause.message}` : '';
    super('FUSEBOX_LIMITER_PERMIT_LOST', `permit ${slot} of limiter "${key}" was lost${reason}`, options);
    this.key = key;
    this.slot = slot;
  }
}
