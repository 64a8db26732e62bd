/**
 * The candidate nearest to `typed` by edit distance (insertions, deletions, substitutions), when it is near
 * enough to be a typo of it: at most 2 edits, and fewer than half of the typed word. Undefined otherwise.
 *
 * @example
 * closestWord('--colour', ['--color', '--port']); // '--color'
 */
export function closestWord(typed: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.floor((typed.length - 1) / 2));
  let best: { word: string; distance: number } | undefined;
  for (const word of candidates) {
    const distance = editDistance(typed, word);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { word, distance };
  }
  return best?.word;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
