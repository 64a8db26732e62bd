/**
 * The most intervals open at one moment: how many permits a set of recorded [acquired, released] intervals
 * held at once. An interval ending exactly when another starts does not overlap it.
 *
 * @example
 * maxOverlap([[0, 2], [1, 3], [2, 4]]); // 2
 */
export function maxOverlap(intervals: [number, number][]): number {
  const events = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]);
  events.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let most = 0;
  for (const [, delta] of events) most = Math.max(most, (open += delta!));
  return most;
}
