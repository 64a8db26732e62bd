import type { DemoProgress } from './run-demo';

/** Redraws of the live line per second at most, on a terminal. */
const REDRAW_MS = 200;
/** Off a terminal (CI, a log file), one line this often instead. */
const LOG_EVERY_MS = 5_000;

/** Errors by kind, commonest first: `timeout 3, malformed_call 2`. */
export function describeErrors(errors: ReadonlyMap<string, number>): string {
  if (errors.size === 0) return 'none';
  return [...errors]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
}

/**
 * One line of progress: episodes done, executions per second, mean reward, the server's limiter (permits in
 * use and executions waiting for one) and errors by kind.
 */
export function progressLine({ tally, step, steps, server }: DemoProgress): string {
  const { all } = tally;
  const seconds = Math.max(tally.elapsedSeconds(), 0.001);
  const parts = [
    `step ${step}/${steps}`,
    `${all.episodes}/${tally.planned} episodes`,
    `${(all.executions / seconds).toFixed(1)} executions/s`,
    `mean reward ${all.episodes ? (all.scoreSum / all.episodes).toFixed(2) : '–'}`,
  ];
  if (server) parts.push(`limiter ${server.inFlight}/${server.limit} running, ${server.waiting} waiting`);
  parts.push(`errors: ${describeErrors(tally.errors)}`);
  return parts.join(' · ');
}

/**
 * Shows progress on `stream`: on a terminal one line redrawn in place, at most five times a second; elsewhere a
 * plain line every five seconds, so logs stay readable. `clear` makes room for a line that must stay.
 */
export function progressDisplay(stream: NodeJS.WriteStream = process.stderr) {
  let shownAt = -Infinity;
  let visible = false;
  return {
    update(progress: DemoProgress) {
      const now = performance.now();
      if (now - shownAt < (stream.isTTY ? REDRAW_MS : LOG_EVERY_MS)) return;
      shownAt = now;
      const line = progressLine(progress);
      if (!stream.isTTY) {
        stream.write(`${line}\n`);
        return;
      }
      const width = stream.columns > 10 ? stream.columns - 1 : line.length;
      stream.write(`\r${line.slice(0, width)}\x1b[K`);
      visible = true;
    },
    clear() {
      if (visible) stream.write('\r\x1b[K');
      visible = false;
    },
  };
}
