/** One line of a diff from text A to text B. */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/**
 * A line diff from `a` to `b` (Myers' O(ND) shortest edit script), or null when the texts differ by more than
 * `maxEdits` lines: two unrelated 200 KB responses would cost seconds and show nothing useful. The common
 * start and end are cut first, so two long answers that differ in a few lines stay cheap.
 */
export function lineDiff(a: string[], b: string[], maxEdits = 2_000): DiffLine[] | null {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  const same = (lines: string[]) => lines.map((text): DiffLine => ({ kind: 'same', text }));
  const middle = myers(a.slice(start, a.length - end), b.slice(start, b.length - end), maxEdits);
  if (middle === null) return null;
  return [...same(a.slice(0, start)), ...middle, ...same(a.slice(a.length - end))];
}

function myers(a: string[], b: string[], maxEdits: number): DiffLine[] | null {
  const n = a.length;
  const m = b.length;
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  // After each round d, the furthest x on diagonals -d … d: what the walk back needs.
  const rounds: Int32Array[] = [];
  for (let d = 0; d <= Math.min(n + m, maxEdits); d++) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        rounds.push(v.slice(offset - d, offset + d + 1));
        return walkBack(a, b, rounds);
      }
    }
    rounds.push(v.slice(offset - d, offset + d + 1));
  }
  return null;
}

function walkBack(a: string[], b: string[], rounds: Int32Array[]): DiffLine[] {
  const lines: DiffLine[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = rounds.length - 1; d > 0; d--) {
    const previous = rounds[d - 1]!;
    const at = (k: number) => previous[k + d - 1]!;
    const k = x - y;
    const fromK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const fromX = at(fromK);
    const fromY = fromX - fromK;
    // The diagonal run back to the end of this round's one edit.
    const editX = fromK === k + 1 ? fromX : fromX + 1;
    while (x > editX) {
      lines.push({ kind: 'same', text: a[x - 1]! });
      x--;
      y--;
    }
    if (fromK === k + 1) lines.push({ kind: 'added', text: b[fromY]! });
    else lines.push({ kind: 'removed', text: a[fromX]! });
    x = fromX;
    y = fromY;
  }
  while (x > 0) {
    lines.push({ kind: 'same', text: a[x - 1]! });
    x--;
  }
  return lines.reverse();
}
