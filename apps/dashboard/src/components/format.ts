/** Milliseconds as people read them: 850 ms, 12.3 s, 4 min. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** A score to three significant decimals at most; '–' when missing. */
export function formatScore(score: number | null | undefined): string {
  if (score === null || score === undefined) return '–';
  return Number.isInteger(score) ? String(score) : score.toFixed(3).replace(/0+$/, '');
}

/** A date-time in the viewer's locale, to the second. */
export function formatTime(value: string | Date): string {
  return new Date(value).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

/** A size in characters: 980, 12.4k, 1.2M. */
export function formatChars(chars: number): string {
  if (chars < 1000) return String(chars);
  if (chars < 1_000_000) return `${(chars / 1000).toFixed(1)}k`;
  return `${(chars / 1_000_000).toFixed(1)}M`;
}

/** A count with its noun, singular for one: `1 match`, `2 matches`, `1,000+ samples`. */
export function formatCount(count: number, one: string, many: string, { capped = false } = {}): string {
  return `${count.toLocaleString()}${capped ? '+' : ''} ${count === 1 && !capped ? one : many}`;
}
