import { describe, expect, it } from 'vitest';
import { splitTest } from '../src/run-split-test';

// A split site's actual expression runs in the model's process, and the host believes its report. Only a call of
// the code under test on literal arguments may go there: anything more would carry the test's own comparison,
// and its expected literals, into that process, where the model prints whatever holds
// (apps/api/test/hostile/split-verdict-truthy.test.ts shows it winning a trusted reward before this).

const test = (line: string) => `const assert = require('node:assert');\n${line};\n`;

describe('which node assert conditions are split', () => {
  it.each([
    'assert(Math.abs(candidate(7) - 987654321) < 1e-6)',
    'assert(candidate(7) === 987654321 && candidate(1) === 141093477)',
    'assert(!(candidate(7) !== 987654321))',
    'assert.strictEqual(candidate(7) === 987654321, true)',
    'assert.deepEqual(candidate(7) + 1, 987654322)',
    'assert.equal(`${candidate(7)}`, "987654321")',
    'assert(Boolean(candidate(7) === 987654321))',
    'assert.deepEqual(Math.abs(candidate(7) - 987654321), 0)',
    'assert(candidate(7).includes(987654321))',
    'assert.strictEqual(candidate(7).toString() === "987654321", true)',
    'assert.strictEqual(results[0], 987654321)',
  ])('refuses %s: it stays on the marker path, untrusted', (line) => {
    expect(splitTest('nodejs', test(line))).toBeUndefined();
  });

  it.each([
    'assert(candidate(7) === 987654321)',
    'assert.deepEqual(candidate(7), 987654321)',
    'assert(candidate.check(7))',
    'assert(!candidate(7))',
    'assert.deepEqual(candidate([1, "a"], {b: null}), 987654321)',
  ])('splits %s (the control: the code under test called on literals)', (line) => {
    const split = splitTest('nodejs', test(line));
    expect(split?.sites).toHaveLength(1);
    expect(split?.program('')).not.toContain('987654321');
  });
});
