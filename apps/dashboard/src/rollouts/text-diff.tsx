'use client';

import { useMemo } from 'react';
import { type DiffLine, lineDiff } from './line-diff';

/** Unchanged lines kept around each change; longer unchanged runs fold to one line. */
const CONTEXT = 3;

type Shown = DiffLine | { kind: 'folded'; count: number };

function withFolds(lines: DiffLine[]): Shown[] {
  const shown: Shown[] = [];
  const near = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind === 'same') return;
    for (let at = Math.max(0, index - CONTEXT); at <= Math.min(lines.length - 1, index + CONTEXT); at++)
      near[at] = true;
  });
  let folded = 0;
  lines.forEach((line, index) => {
    if (near[index]) {
      if (folded > 0) shown.push({ kind: 'folded', count: folded });
      folded = 0;
      shown.push(line);
    } else folded++;
  });
  if (folded > 0) shown.push({ kind: 'folded', count: folded });
  return shown;
}

/** A line diff of two texts (A → B), changes with three lines of context, as `diff -u` shows them. */
export function TextDiff({ a, b, label }: { a: string; b: string; label: string }) {
  const diff = useMemo(() => lineDiff(a.split('\n'), b.split('\n')), [a, b]);
  if (diff === null) return <p className="muted">The two texts differ in too many lines to diff usefully.</p>;
  const changes = diff.filter((line) => line.kind !== 'same').length;
  if (changes === 0) return <p className="muted">The two texts are the same.</p>;
  return (
    <pre className="text text-diff" aria-label={label}>
      {withFolds(diff).map((line, index) =>
        line.kind === 'folded' ? (
          <span key={index} className="diff-folded">
            {`… ${line.count} unchanged lines\n`}
          </span>
        ) : (
          <span key={index} className={`diff-${line.kind}`}>
            {`${line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '} ${line.text}\n`}
          </span>
        ),
      )}
    </pre>
  );
}
