// A vitest reporter that writes what failed, and only that, to the file named by FUSEBOX_FAILURES_FILE: failed
// tests, files and suites whose hooks or imports failed, and unhandled errors. `npm test` prints it after its
// summary line, because CI keeps only the tail of the log, and a run can fail with no failed test (an unhandled
// rejection, an afterAll that timed out) that the JSON report does not mention. A suite whose beforeAll failed
// marks its tests skipped, not failed, and keeps the error on itself.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const MAX_MESSAGE_CHARS = 600;

export default class FailuresReporter {
  onInit(vitest) {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules, unhandledErrors, reason) {
    const file = process.env.FUSEBOX_FAILURES_FILE;
    if (!file) return;
    const failures = [];
    for (const testModule of testModules) {
      const where = relative(this.root, testModule.moduleId);
      for (const error of testModule.errors()) failures.push(`${where}: ${describe(error)}`);
      for (const suite of testModule.children.allSuites()) {
        for (const error of suite.errors()) failures.push(`${where} › ${suite.fullName}: ${describe(error)}`);
      }
      for (const test of testModule.children.allTests('failed')) {
        const errors = test.result().errors ?? [];
        failures.push(`${where} › ${test.fullName}: ${errors.map(describe).join(' | ') || 'failed'}`);
      }
    }
    for (const error of unhandledErrors) failures.push(`unhandled: ${describe(error)}`);
    writeFileSync(file, JSON.stringify({ reason, failures }));
  }
}

function describe(error) {
  const text = [error?.name, error?.message].filter(Boolean).join(': ') || String(error);
  const origin = typeof error?.stack === 'string' ? firstFrame(error.stack) : '';
  const line = (origin ? `${text} (${origin})` : text).replace(/\s+/g, ' ');
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS)}…` : line;
}

function firstFrame(stack) {
  return (
    stack
      .split('\n')
      .find((line) => line.trim().startsWith('at ') && !line.includes('node_modules'))
      ?.trim() ?? ''
  );
}
