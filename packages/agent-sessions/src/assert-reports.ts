/**
 * The report lines of a split test's program (split-test.ts): `fusebox-report <site> <value>`, one a line, each
 * printed after a newline of its own so that output the program left without one does not swallow it. What the
 * program prints is the model's to choose, so nothing here is believed: a report only ever counts against a
 * value the program never saw.
 */
const REPORT_LINE = /^fusebox-report (\d{1,6}) (.*)$/;
const REPORT_PREFIX = 'fusebox-report ';

export interface Reports {
  /** Each site's reported values, in the order printed. */
  bySite: Map<number, string[]>;
  /** Lines that start like a report but are none (a bad site number). */
  malformed: string[];
  /** The stdout without the report lines, as the program's own output reads. */
  output: string;
}

export function readReports(stdout: string): Reports {
  const bySite = new Map<number, string[]>();
  const malformed: string[] = [];
  const kept: string[] = [];
  for (const line of stdout.split('\n')) {
    const match = REPORT_LINE.exec(line);
    if (match === null) {
      if (line.startsWith(REPORT_PREFIX)) malformed.push(line.slice(0, 100));
      else kept.push(line);
      continue;
    }
    const site = Number(match[1]);
    const values = bySite.get(site) ?? [];
    values.push(match[2] as string);
    bySite.set(site, values);
  }
  return { bySite, malformed, output: kept.join('\n').replaceAll(/\n{2,}/g, '\n') };
}
