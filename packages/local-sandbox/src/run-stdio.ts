import { closeSync, constants, openSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { CappedOutput } from './capped-output';
import { RUN_STDIO } from './step-driver';

/**
 * The host's side of the run step's stdio (see {@link RUN_STDIO}): the stdin file is written, and both output
 * pipes are read from now on. Each pipe is also held open for writing by the host, so it does not read as ended
 * before the step opens it; `close()` lets go once every sandboxed process is dead, and `ended` resolves when
 * both pipes are drained.
 */
export class RunStdio {
  readonly stdout: CappedOutput;
  readonly stderr: CappedOutput;
  readonly ended: Promise<void>;
  readonly #keepOpen: number[];

  constructor(tmp: string, stdin: string | null, limit: number) {
    // Joined by hand: `tmp` may be `/proc/self/fd/N/..`, which path.join would collapse.
    writeFileSync(`${tmp}/${RUN_STDIO.stdin}`, stdin ?? '');
    this.stdout = new CappedOutput(limit);
    this.stderr = new CappedOutput(limit);
    const pipes = [
      [`${tmp}/${RUN_STDIO.stdout}`, this.stdout],
      [`${tmp}/${RUN_STDIO.stderr}`, this.stderr],
    ] as const;
    this.#keepOpen = [];
    const ends = pipes.map(([path, output]) => {
      const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      this.#keepOpen.push(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
      const socket = new Socket({ fd: reader, readable: true, writable: false });
      socket.on('data', (chunk: Buffer) => output.push(chunk));
      return new Promise<void>((resolve) => {
        socket.on('end', resolve);
        socket.on('close', resolve);
        socket.on('error', resolve);
      });
    });
    this.ended = Promise.all(ends).then(() => undefined);
  }

  /** Stops holding the pipes open: once the sandbox is gone, they end as soon as they are drained. */
  close(): void {
    for (const fd of this.#keepOpen.splice(0)) closeSync(fd);
  }
}
