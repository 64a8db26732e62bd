/** One acquire: when it asked, got the slot and began to release it (process.hrtime in ms, machine-wide). */
export type Sample = [requested: number, granted: number, released: number];

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * FIFO inversions: pairs where b asked more than `toleranceMs` after a, yet got its slot more than
 * `toleranceMs` before a. The tolerance absorbs the clock readings' own jitter (each process reads the clock
 * when its event loop gets to it), which on a loaded machine is not zero. O(n log n) with a Fenwick tree.
 */
export function countInversions(samples: Sample[], toleranceMs: number): number {
  const byRequest = [...samples].sort((a, b) => a[0] - b[0]);
  const grants = samples.map((sample) => sample[1]).sort((a, b) => a - b);
  const tree = new Array<number>(grants.length + 1).fill(0);
  const add = (index: number) => {
    for (let i = index + 1; i <= grants.length; i += i & -i) tree[i]! += 1;
  };
  const countUpTo = (index: number) => {
    let total = 0;
    for (let i = index; i > 0; i -= i & -i) total += tree[i]!;
    return total;
  };
  // Index of the first grant strictly greater than `value`.
  const upperBound = (value: number) => {
    let low = 0;
    let high = grants.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (grants[middle]! <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  };

  let inversions = 0;
  let added = 0;
  let inserted = 0;
  for (const [requested, granted] of byRequest) {
    // Everyone who asked clearly earlier is in the tree; count those granted clearly later.
    while (inserted < byRequest.length && byRequest[inserted]![0] < requested - toleranceMs) {
      add(upperBound(byRequest[inserted]![1]) - 1);
      inserted += 1;
      added += 1;
    }
    inversions += added - countUpTo(upperBound(granted + toleranceMs));
  }
  return inversions;
}
