import { readFileSync } from 'node:fs';
import { DEFAULT_UID_LEASE_DIR, UidLeases } from './uid-leases';

/**
 * The first host uid (and gid) sandboxes run as when Fusebox runs as root: 0x70000000, just above the range
 * systemd sets aside for containers' user namespaces (524288–1879048191) and far above what useradd, subuid and
 * systemd's dynamic users allocate, so no file on the host belongs to it.
 */
export const DEFAULT_SANDBOX_UID_BASE = 1_879_048_192;
/** How many ids the range holds: far more sandboxes than can live at once on one machine. */
export const SANDBOX_UID_COUNT = 65_536;

/** Uids in one lease: every Fusebox server on a machine holds whole blocks, never a uid of another's. */
export const DEFAULT_SANDBOX_UID_BLOCK = 1024;

/**
 * Host identities for sandboxes, one per live sandbox: concurrent sandboxes never share a uid, so per-user
 * kernel limits (processes, inotify watches, message queues) and same-uid access (signals, /proc) never join
 * two runs. An id is handed out again only after its sandbox and every process in it are gone. Ids come from
 * blocks leased across processes ({@link UidLeases}), so two servers on one machine never share one either.
 */
export class SandboxIdentities {
  /**
   * Identities for this process's sandboxes: undefined when it is not root (it cannot switch uid; sandboxes
   * then run as its own uid, in their own user namespaces), or when the range is not mapped in its user
   * namespace (root of a container), which `warn` is told.
   */
  static forThisProcess(
    base: number,
    warn: (message: string) => void,
    { blockSize = DEFAULT_SANDBOX_UID_BLOCK, leaseDir = DEFAULT_UID_LEASE_DIR } = {},
  ): SandboxIdentities | undefined {
    if (process.getuid?.() !== 0) return undefined;
    const unmapped = ['uid_map', 'gid_map'].filter((map) => !rangeMapped(map, base, SANDBOX_UID_COUNT));
    if (unmapped.length > 0) {
      warn(
        `the sandbox ids ${base}-${base + SANDBOX_UID_COUNT - 1} are not mapped in this user namespace (${unmapped.join(', ')}), ` +
          "so sandboxes run as this process's uid in user namespaces of their own; map that range into the " +
          'container, or set FUSEBOX_SANDBOX_UID_BASE to ids it maps that nothing owns',
      );
      return undefined;
    }
    const identities = new SandboxIdentities(base, blockSize);
    identities.#leases = UidLeases.open(
      leaseDir,
      { first: base, size: blockSize, blocks: Math.floor(SANDBOX_UID_COUNT / blockSize) },
      warn,
    );
    return identities;
  }

  readonly #base: number;
  readonly #blockSize: number;
  #leases: UidLeases | undefined;
  readonly #free: number[] = [];
  /** The leased block ids are being taken from, and the next id of it not handed out yet. */
  #block: number | undefined;
  #next = 0;
  /** Every id handed out was never used before by anyone: without leases, the whole range is this process's. */
  #unleasedNext = 0;

  constructor(base: number, blockSize = DEFAULT_SANDBOX_UID_BLOCK) {
    if (!Number.isSafeInteger(base) || base < 1 || base + SANDBOX_UID_COUNT > 0xffff_fffe) {
      throw new TypeError(
        `expected the sandbox uid base to be an integer from 1 to ${0xffff_fffe - SANDBOX_UID_COUNT}, got ${base}`,
      );
    }
    if (!Number.isSafeInteger(blockSize) || blockSize < 1 || blockSize > SANDBOX_UID_COUNT) {
      throw new TypeError(
        `expected the sandbox uid block to be an integer from 1 to ${SANDBOX_UID_COUNT}, got ${blockSize}`,
      );
    }
    this.#base = base;
    this.#blockSize = blockSize;
  }

  /** An id no live sandbox of any Fusebox server on this machine holds. */
  async acquire(): Promise<number> {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#leases === undefined) {
      if (this.#unleasedNext >= SANDBOX_UID_COUNT) {
        throw new Error(`all ${SANDBOX_UID_COUNT} sandbox uids are in use`);
      }
      this.#unleasedNext += 1;
      return this.#base + this.#unleasedNext - 1;
    }
    if (this.#block === undefined || this.#next >= this.#blockSize) {
      const block = await this.#leases.lease();
      if (block === undefined) {
        throw new Error(
          `every block of ${this.#blockSize} sandbox uids from ${this.#base} is held by a live Fusebox server ` +
            'on this machine (or the lease helper died): set a smaller FUSEBOX_SANDBOX_UID_BLOCK or give each server its ' +
            'own FUSEBOX_SANDBOX_UID_BASE',
        );
      }
      this.#block = block.first;
      this.#next = 0;
    }
    this.#next += 1;
    return this.#block + this.#next - 1;
  }

  release(id: number): void {
    this.#free.push(id);
  }

  /** Gives the leased blocks back: call once every sandbox is gone. */
  async close(): Promise<void> {
    await this.#leases?.close();
  }
}

/** Whether ids `first`..`first + count - 1` all exist in this process's user namespace, per /proc/self/<map>. */
function rangeMapped(map: string, first: number, count: number): boolean {
  const ranges = readFileSync(`/proc/self/${map}`, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .map(([inside = 0, , length = 0]) => ({ from: inside, to: inside + length }))
    .sort((a, b) => a.from - b.from);
  let covered = first;
  for (const range of ranges) {
    if (range.from > covered) break;
    covered = Math.max(covered, range.to);
    if (covered >= first + count) return true;
  }
  return false;
}
