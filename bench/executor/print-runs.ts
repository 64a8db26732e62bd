/** What a print(1) bench needs of an executor: this checkout's, or one imported from another commit's tree. */
export interface PrintRunner {
  runCode(input: { code: string; language: 'python' }): Promise<{ response: { status: string } }>;
}

/**
 * Runs `runs` print(1) executions, `concurrency` at a time, and returns each one's latency (ms, in the order
 * they finished) and the seconds they took in all. A run that does not succeed fails the bench.
 */
export async function printRuns(
  executor: PrintRunner,
  concurrency: number,
  runs: number,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < runs) {
        next += 1;
        const begun = performance.now();
        const { response } = await executor.runCode({ code: 'print(1)', language: 'python' });
        if (response.status !== 'Success') throw new Error(`a run failed: ${JSON.stringify(response)}`);
        latencies.push(performance.now() - begun);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}
