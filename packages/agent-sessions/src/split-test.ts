/**
 * An assert test split in two (issue 15, item 5), for languages whose tests run in one program with the model's
 * code. Each assert site of the test becomes a report of its ACTUAL expression (what the test computes from the
 * model's code) in the program the model's process runs, and its EXPECTED expression (a literal the test wrote)
 * never enters that process: the host holds it, or evaluates it in a separate sandboxed program of the same
 * language that contains nothing of the model's. The host compares the two. The model's process can print any
 * report it likes, but a report that holds needs the expected value, which it never sees.
 */
export interface SplitTest {
  /** One entry per assert site, in the test's order; a report names its site by index here. */
  sites: readonly SplitSite[];
  /** The program the model's process runs: the solution, and the test with each assert turned into a report. */
  program(solution: string): string;
  /**
   * A program, without any of the model's code, that reports the expected value of every site (same report
   * format, same serialiser), for languages whose literals need the language to evaluate; undefined when the
   * host evaluates them itself (`expected` of each site).
   */
  expectedProgram?: string;
  /**
   * Where both programs write their report lines, for a language whose runner keeps a passing program's stdout
   * to itself (`go test`): the run fetches the file back. Undefined: the reports are on stdout.
   */
  reportFile?: string;
  /**
   * Whether a site's check holds: its actual report against its expected value (the host's own, or the
   * expected program's report), with what to show when it does not.
   */
  holds(site: SplitSite, actual: string, expected: string | undefined): Check;
}

export interface SplitSite {
  /** The test's line (1-based), to name the site in a failure. */
  line: number;
  /** The assert as the test wrote it. */
  source: string;
}

export type Check = { holds: true } | { holds: false; why: string };
