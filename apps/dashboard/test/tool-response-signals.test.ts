import { describe, expect, it } from 'vitest';
import { toolResponseSignals } from '~/rollouts/tool-response-signals';

describe('reading failures from a tool response', () => {
  it('finds a traceback, or an exception on a line of its own', () => {
    const traceback =
      'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nZeroDivisionError: division by zero';
    expect(toolResponseSignals(traceback).traceback).toBe(true);
    expect(toolResponseSignals("NameError: name 'x' is not defined\n").traceback).toBe(true);
    // Prose about errors is no traceback.
    expect(toolResponseSignals('42\nno errors here').traceback).toBe(false);
  });

  it("reads verl's answer to an unfinished run and SandboxFusion's time limit as a timeout", () => {
    expect(toolResponseSignals('no stdout here').timeout).toBe(true);
    expect(toolResponseSignals('run status: TimeLimitExceeded').timeout).toBe(true);
    expect(toolResponseSignals('there is no stdout here, look elsewhere').timeout).toBe(false);
  });

  it('finds truncation markers, and nothing in a clean or missing response', () => {
    expect(toolResponseSignals('xxxx... (truncated)').truncated).toBe(true);
    expect(toolResponseSignals('42')).toEqual({ traceback: false, timeout: false, truncated: false });
    expect(toolResponseSignals(null)).toEqual({ traceback: false, timeout: false, truncated: false });
  });
});
