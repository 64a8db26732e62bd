import { describe, expect, it } from 'vitest';
import {
  getPromptsRequestSchema,
  runCodeRequestSchema,
  runJupyterRequestSchema,
  validationDetail,
} from '@fusebox/sandbox-client/protocol';

function detail(
  schema: typeof runCodeRequestSchema | typeof runJupyterRequestSchema | typeof getPromptsRequestSchema,
  body: unknown,
) {
  const parsed = schema.safeParse(body);
  if (parsed.success) throw new Error('expected the body to be rejected');
  return validationDetail(parsed.error, body).detail;
}

describe('validationDetail', () => {
  it('reports wrong types the way pydantic v2 does, in the model field order', () => {
    const body = {
      code: 5,
      language: 'python',
      run_timeout: 'soon',
      compile_timeout: [],
      memory_limit_MB: 1.5,
      stdin: 7,
      files: ['a'],
      fetch_files: 'out.txt',
    };
    expect(detail(runCodeRequestSchema, body)).toEqual([
      {
        type: 'float_type',
        loc: ['body', 'compile_timeout'],
        msg: 'Input should be a valid number',
        input: [],
      },
      {
        type: 'float_parsing',
        loc: ['body', 'run_timeout'],
        msg: 'Input should be a valid number, unable to parse string as a number',
        input: 'soon',
      },
      {
        type: 'int_from_float',
        loc: ['body', 'memory_limit_MB'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        input: 1.5,
      },
      { type: 'string_type', loc: ['body', 'code'], msg: 'Input should be a valid string', input: 5 },
      { type: 'string_type', loc: ['body', 'stdin'], msg: 'Input should be a valid string', input: 7 },
      { type: 'dict_type', loc: ['body', 'files'], msg: 'Input should be a valid dictionary', input: ['a'] },
      {
        type: 'list_type',
        loc: ['body', 'fetch_files'],
        msg: 'Input should be a valid list',
        input: 'out.txt',
      },
    ]);
  });

  it('locates errors inside dicts and lists and tells int parsing from float parsing', () => {
    expect(
      detail(runCodeRequestSchema, {
        code: '',
        language: 'bash',
        memory_limit_MB: '512MB',
        files: { 'a.txt': 1 },
        fetch_files: ['ok', 2],
      }),
    ).toEqual([
      {
        type: 'int_parsing',
        loc: ['body', 'memory_limit_MB'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        input: '512MB',
      },
      {
        type: 'string_type',
        loc: ['body', 'files', 'a.txt'],
        msg: 'Input should be a valid string',
        input: 1,
      },
      {
        type: 'string_type',
        loc: ['body', 'fetch_files', 1],
        msg: 'Input should be a valid string',
        input: 2,
      },
    ]);
  });

  it('reports a missing nested field with its parent object as input', () => {
    expect(detail(getPromptsRequestSchema, { dataset: 'mbpp' })).toEqual([
      { type: 'missing', loc: ['body', 'config'], msg: 'Field required', input: { dataset: 'mbpp' } },
    ]);
  });

  it('quotes a single literal the way pydantic does', () => {
    expect(detail(runJupyterRequestSchema, { cells: [], kernel: 'julia' })).toEqual([
      {
        type: 'literal_error',
        loc: ['body', 'kernel'],
        msg: "Input should be 'python3'",
        input: 'julia',
        ctx: { expected: "'python3'" },
      },
    ]);
  });

  it('answers a body that is not an object like FastAPI does', () => {
    expect(detail(runCodeRequestSchema, ['print(1)'])).toEqual([
      {
        type: 'model_attributes_type',
        loc: ['body'],
        msg: 'Input should be a valid dictionary or object to extract fields from',
        input: ['print(1)'],
      },
    ]);
    expect(detail(runCodeRequestSchema, null)).toEqual([
      { type: 'missing', loc: ['body'], msg: 'Field required', input: null },
    ]);
  });
});
