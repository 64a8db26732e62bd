import { describe, expect, it } from 'vitest';
import { parseTaskLine } from '../src/parse-task-line';

const parse = (row: object, format: 'auto' | 'humaneval' | 'mbpp' | 'common_oj' = 'auto') =>
  parseTaskLine(JSON.stringify(row), { format, source: 'fusebox' });

describe("SandboxFusion's HumanEval, MBPP and CommonOJ rows", () => {
  it('recognises each shape and maps it to a task of that dataset', () => {
    const humaneval = parse({
      task_id: 'HumanEval/7',
      prompt: 'def f():\n',
      test: 'def check(c): pass',
      entry_point: 'f',
    });
    expect(humaneval).toMatchObject({
      ok: true,
      task: { name: 'HumanEval/7', source: 'humaneval', language: 'python', failToPass: ['check'] },
    });
    const mbpp = parse({
      id: 11,
      content: 'Do it.',
      test_list: '["assert f() == 1"]',
      labels: '{"test_setup_code": ""}',
    });
    expect(mbpp).toMatchObject({ ok: true, task: { id: '11', name: '11', source: 'mbpp' } });
    const oj = parse({
      id: 5,
      content: 'Echo.',
      labels: { programming_language: 'cpp' },
      test: JSON.stringify([{ input: { stdin: 'x' }, output: { stdout: 'x' } }]),
    });
    expect(oj).toMatchObject({
      ok: true,
      task: {
        source: 'common_oj',
        language: 'cpp',
        sessionMode: 'fresh',
        tests: [{ name: 'case_1', kind: 'io', stdin: 'x', expectedStdout: 'x' }],
      },
    });
  });

  it('says what is wrong with a row of a shape it recognises', () => {
    expect(parse({ task_id: 'h', prompt: '', test: '', entry_point: 'not an identifier' })).toEqual({
      ok: false,
      problem: expect.stringMatching(/^HumanEval row: .*entry_point.*Python identifier/) as unknown,
    });
    expect(parse({ id: 1, content: 'x', test_list: [] })).toEqual({
      ok: false,
      problem: expect.stringMatching(/^MBPP row: .*test_list/) as unknown,
    });
    expect(parse({ id: 1, content: 'x', test: 'not json' }, 'common_oj')).toEqual({
      ok: false,
      problem: expect.stringMatching(/^CommonOJ row: .*test/) as unknown,
    });
  });
});
