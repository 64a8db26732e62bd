import { BackgroundStarts } from './background-starts';
import type { Sandbox } from './sandbox';
import type { SandboxLauncher } from './sandbox-launcher';

/** What a pool's sandboxes run: a command, and whether it is the sandbox's pid 1 (see SandboxLauncher.start). */
export interface SandboxProgram {
  command: readonly string[];
  init: boolean;
}

/**
 * Keeps `size` sandboxes started and waiting for a job, so a request pays only for running its code, not for
 * creating namespaces and mounts. Warm-ups run at a low CPU priority, so on a busy machine they yield to the
 * code being run; a taken sandbox gets normal priority back and is replaced in the background. Used sandboxes
 * are disposed of off the request's path.
 */
export class SandboxPool {
  readonly #launcher: SandboxLauncher;
  readonly #program: SandboxProgram;
  readonly #size: number;
  readonly #warm: Sandbox[] = [];
  readonly #background: BackgroundStarts;
  #starting = 0;
  #closed = false;

  constructor(
    launcher: SandboxLauncher,
    program: SandboxProgram,
    size: number,
    onError: (error: unknown) => void,
  ) {
    this.#launcher = launcher;
    this.#program = program;
    this.#size = size;
    this.#background = new BackgroundStarts(onError, () => this.#refill());
    this.#refill();
  }

  /** Sandboxes ready for a job now. */
  get warm(): number {
    return this.#warm.length;
  }

  /** A ready sandbox: a warm one if any, else a freshly started one. */
  async take(): Promise<Sandbox> {
    // Replacements start once the caller has sent its job, so their spawns never delay it.
    setImmediate(() => this.#refill());
    for (let sandbox = this.#warm.shift(); sandbox; sandbox = this.#warm.shift()) {
      if (sandbox.alive) {
        sandbox.prioritise();
        return sandbox;
      }
      this.release(sandbox);
    }
    return this.#launcher.start(this.#program.command, { init: this.#program.init });
  }

  /** Disposes of a used sandbox in the background; `close()` waits for it. */
  release(sandbox: Sandbox): void {
    this.#background.track(sandbox.dispose());
  }

  /** Stops warming, disposes of the warm sandboxes and waits for every disposal. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const sandbox of this.#warm.splice(0)) this.release(sandbox);
    await this.#background.settled();
  }

  #refill(): void {
    if (this.#closed || this.#background.paused) return;
    while (this.#warm.length + this.#starting < this.#size) {
      this.#starting += 1;
      this.#background.track(
        this.#launcher.start(this.#program.command, { background: true, init: this.#program.init }).then(
          (sandbox) => {
            this.#starting -= 1;
            this.#background.started();
            if (this.#closed) this.release(sandbox);
            else this.#warm.push(sandbox);
          },
          (error: unknown) => {
            this.#starting -= 1;
            this.#background.failed(error);
          },
        ),
      );
    }
  }
}
