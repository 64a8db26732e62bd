import { readFileSync } from 'node:fs';

/**
 * The first host uid (and gid) sandboxes run as when Fusebox runs as root: 0x70000000, just above the range
 * systemd sets aside for containers' user namespaces (524288–1879048191) and far above what useradd, subuid and
 * systemd's dynamic users allocate, so no file on the host belongs to it.
 */
export const DEFAULT_SANDBOX_UID_BASE = 1_879_048_192;
/** How many ids the range holds: far more sandboxes than can live at once on one machine. */
export const SANDBOX_UID_COUNT = 65_536;

/**
 * Host identities for sandboxes, one per live sandbox: concurrent sandboxes never share a uid, so per-user
 * kernel limits (processes, inotify watches, message queues) and same-uid access (signals, /proc) never join
 * two runs. An id is handed out again only after its sandbox and every process in it are gone.
 */
export class SandboxIdentities {
  /**
   * Identities for this process's sandboxes: undefined when it is not root (it cannot switch uid; sandboxes
   * then run as its own uid, in their own user namespaces), or when the range is not mapped in its user
   * namespace (root of a container), which `warn` is told.
   */
  static forThisProcess(base: number, warn: (message: string) => void): SandboxIdentities | undefined {
    if (process.getuid?.() !== 0) return undefined;
    const identities = new SandboxIdentities(base);
    const unmapped = ['uid_map', 'gid_map'].filter((map) => !rangeMapped(map, base, SANDBOX_UID_COUNT));
    if (unmapped.length === 0) return identities;
    warn(
      `the sandbox ids ${base}-${base + SANDBOX_UID_COUNT - 1} are not mapped in this user namespace (${unmapped.join(', ')}), ` +
        "so sandboxes run as this process's uid in user namespaces of their own; map that range into the " +
        'container, or set FUSEBOX_SANDBOX_UID_BASE to ids it maps that nothing owns',
    );
    return undefined;
  }

  readonly #base: number;
  readonly #free: number[] = [];
  #next = 0;

  constructor(base: number) {
    if (!Number.isSafeInteger(base) || base < 1 || base + SANDBOX_UID_COUNT > 0xffff_fffe) {
      throw new TypeError(
        `expected the sandbox uid base to be an integer from 1 to ${0xffff_fffe - SANDBOX_UID_COUNT}, got ${base}`,
      );
    }
    this.#base = base;
  }

  /** An id no live sandbox holds. */
  acquire(): number {
    const reused = this.#free.pop();
    if (reused !== undefined) return reused;
    if (this.#next >= SANDBOX_UID_COUNT) throw new Error(`all ${SANDBOX_UID_COUNT} sandbox uids are in use`);
    const id = this.#base + this.#next;
    this.#next += 1;
    return id;
  }

  release(id: number): void {
    this.#free.push(id);
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
