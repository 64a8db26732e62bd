import { describe, expect, it } from 'vitest';
import { toolErrors, toolResponseSignals } from '../src/tool-response-signals';

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

describe('counting the tool errors of a response', () => {
  it('counts the failing tool responses, in a tool message or in <tool_response> blocks of a user message', () => {
    const response = [
      '<tool_call>{"name": "code_interpreter"}</tool_call>',
      'user',
      '<tool_response>\nZeroDivisionError: division by zero\n</tool_response>',
      '<tool_response>\n42\n</tool_response>',
      'assistant',
      '<tool_call>{}</tool_call>',
      'tool',
      'no stdout here',
      'assistant',
      'The answer is 42.',
    ].join('\n');
    expect(toolErrors(response)).toBe(2);
  });

  it("counts nothing the model wrote itself, nor a user's message, nor a cut output", () => {
    expect(toolErrors('NameError: I made this up\nTraceback (most recent call last)')).toBe(0);
    expect(toolErrors('x\nuser\nno stdout here\nassistant\ny')).toBe(0);
    expect(toolErrors('x\nuser\n<tool_response>NameError: x</tool_response> and more words')).toBe(0);
    expect(toolErrors('x\ntool\n42 ... (truncated)')).toBe(0);
  });
});
