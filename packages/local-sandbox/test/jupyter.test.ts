import { describe, expect, it } from 'vitest';
import { useExecutor } from './use-executor';

const { executor } = useExecutor();

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

describe('runJupyter', () => {
  it('runs cells in one interpreter: displays values, records errors and runs later cells', async () => {
    const { response } = await executor().runJupyter({
      cells: [
        'a = "hello"',
        'a',
        'print(a)',
        'import sys\nsys.stderr.write("warn\\n")',
        'assert 1 == 2',
        'print(2)',
        'a;',
      ],
    });
    expect(response.status).toBe('Success');
    expect(response.cells.map((cell) => [cell.stdout, cell.stderr, cell.display])).toEqual([
      ['', '', []],
      ['', '', [{ 'text/plain': "'hello'" }]],
      ['hello\n', '', []],
      ['', 'warn\n', [{ 'text/plain': '5' }]],
      ['', '', []],
      ['2\n', '', []],
      ['', '', []],
    ]);
    const error = response.cells[4]?.error[0];
    expect(error).toMatchObject({ ename: 'AssertionError', evalue: '' });
    // Numbered as SandboxFusion's kernel numbers them (its health-check cell is In [1]).
    expect(error?.traceback.map(plain)).toEqual([
      '-'.repeat(75),
      `AssertionError${' '.repeat(28)}Traceback (most recent call last)`,
      'Cell In [6], line 1\n----> 1 assert 1 == 2\n',
      'AssertionError: ',
    ]);
  });

  it('reports a syntax error in a cell and still runs the next one', async () => {
    const { response } = await executor().runJupyter({ cells: ['def f(:\n    pass', '1 + 1'] });
    expect(response.cells[0]?.error[0]?.ename).toBe('SyntaxError');
    expect(plain(response.cells[0]?.error[0]?.traceback.join('') ?? '')).toContain('def f(:');
    expect(response.cells[1]?.display).toEqual([{ 'text/plain': '2' }]);
  });

  it('answers Failed with no cells when total_timeout runs out, as SandboxFusion does', async () => {
    const { response } = await executor().runJupyter({
      cells: ['1', 'import time\ntime.sleep(30)'],
      total_timeout: 1,
    });
    expect(response).toMatchObject({ status: 'Failed', cells: [], driver: { status: 'TimeLimitExceeded' } });
  });

  it('stops at a cell that overruns cell_timeout: Failed, with the cells run so far', async () => {
    const { response } = await executor().runJupyter({
      cells: ['x = 1', 'import time\ntime.sleep(30)', 'x'],
      cell_timeout: 0.5,
    });
    expect(response.status).toBe('Failed');
    expect(response.cells).toHaveLength(2);
    expect(response.cells[1]?.error[0]?.ename).toBe('TimeoutError');
  });

  it('runs cells in IPython: `!` commands, magics, and rich display data from pandas, Markdown and matplotlib', async () => {
    const { response } = await executor().runJupyter({
      cells: [
        '!echo hi from a shell',
        '%pwd',
        'import pandas as pd\npd.DataFrame({"x": [1, 2]})',
        'from IPython.display import Markdown, HTML, display\ndisplay(Markdown("**bold**"))\nHTML("<b>html</b>")',
        'import matplotlib.pyplot as plt\nplt.plot([1, 4, 9]);',
        '%timeit -n1 -r1 sum(range(10))',
      ],
    });
    expect(response.status).toBe('Success');
    expect(response.cells.map((cell) => cell.error)).toEqual([[], [], [], [], [], []]);
    const [shell, pwd, frame, rich, figure, timeit] = response.cells;
    expect(shell?.stdout).toBe('hi from a shell\n');
    expect(pwd?.display).toEqual([{ 'text/plain': expect.stringMatching(/^'\/tmp\/\w+'$/) as unknown }]);
    expect(frame?.display[0]?.['text/html']).toContain('<table');
    expect(frame?.display[0]?.['text/plain']).toContain('x');
    expect(rich?.display).toEqual([
      { 'text/plain': '<IPython.core.display.Markdown object>', 'text/markdown': '**bold**' },
      { 'text/plain': '<IPython.core.display.HTML object>', 'text/html': '<b>html</b>' },
    ]);
    const png = figure?.display.find((bundle) => 'image/png' in bundle)?.['image/png'];
    expect(typeof png).toBe('string');
    expect(
      Buffer.from(png as string, 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(timeit?.stdout).toMatch(/per loop/);
  });

  it('writes files and fetches files like /run_code', async () => {
    const { response } = await executor().runJupyter({
      cells: ['data = open("in.txt").read()', 'open("out.txt", "w").write(data.upper())'],
      files: { 'in.txt': Buffer.from('abc').toString('base64') },
      fetch_files: ['out.txt', 'nope.txt'],
    });
    expect(response.cells[1]?.display).toEqual([{ 'text/plain': '3' }]);
    expect(response.files).toEqual({ 'out.txt': Buffer.from('ABC').toString('base64') });
  });

  it('fetches absolute paths in the sandbox /tmp, and refuses others with a SandboxError', async () => {
    const { response } = await executor().runJupyter({
      cells: ['open("/tmp/b", "w").write("bee")'],
      fetch_files: ['/tmp/b'],
    });
    expect(response.files).toEqual({ '/tmp/b': Buffer.from('bee').toString('base64') });
    const refused = await executor().runJupyter({ cells: ['1'], fetch_files: ['/mnt/b'] });
    expect(refused.response.status).toBe('SandboxError');
    expect(refused.response.message).toContain('refused file path "/mnt/b"');
  });
});
