import { readFile } from 'node:fs/promises';

/** The `p`th percentile of `values` (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One POST /retrieve as verl's SearchTool sends it (with scores); its wall-clock time in ms. Throws unless 200. */
export async function retrieve(port: number, queries: string[], topk: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}/retrieve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ queries, topk, return_scores: true }),
  });
  const body = (await response.json()) as { result?: unknown[] };
  if (response.status !== 200 || body.result?.length !== queries.length)
    throw new Error(`/retrieve answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return performance.now() - started;
}

/** A process's resident memory, in MB. */
export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024);
}
