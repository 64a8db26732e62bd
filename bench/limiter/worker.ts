// One bench process: a contender and its workers, driven by run.ts over IPC.
import { setTimeout as sleep } from 'node:timers/promises';
import { type ContenderConfig, type ContenderName, createContender } from './contenders';
import type { Sample } from './measures';

export type WorkerCommand =
  | { type: 'uncontended'; iterations: number }
  | { type: 'contended'; workers: number; holdMs: number; startAt: number; stopAt: number }
  | { type: 'close' };

export type WorkerReply =
  { type: 'ready' } | { type: 'latencies'; latencies: number[] } | { type: 'samples'; samples: Sample[] };

const now = () => Number(process.hrtime.bigint()) / 1e6;
const name = process.argv[2] as ContenderName;
const config = JSON.parse(process.argv[3]!) as ContenderConfig;
const contender = await createContender(name, config);
const reply = (message: WorkerReply) => process.send!(message);

async function uncontended(iterations: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = now();
    const release = await contender.acquire();
    await release();
    latencies.push(now() - started);
  }
  return latencies;
}

async function contended(
  workers: number,
  holdMs: number,
  startAt: number,
  stopAt: number,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  await sleep(Math.max(0, startAt - now()));
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (now() < stopAt) {
        const requested = now();
        const release = await contender.acquire();
        const granted = now();
        if (holdMs > 0) await sleep(holdMs);
        // Stamped before releasing: once the release is sent, the slot may already be someone else's.
        samples.push([requested, granted, now()]);
        await release();
      }
    }),
  );
  return samples;
}

process.on('message', (command: WorkerCommand) => {
  void (async () => {
    switch (command.type) {
      case 'uncontended':
        reply({ type: 'latencies', latencies: await uncontended(command.iterations) });
        break;
      case 'contended':
        reply({
          type: 'samples',
          samples: await contended(command.workers, command.holdMs, command.startAt, command.stopAt),
        });
        break;
      case 'close':
        await contender.close();
        process.disconnect();
        break;
    }
  })();
});

reply({ type: 'ready' });
