import { describe, expect, it } from 'vitest';
import { csvField, serialise } from '../src/rollouts/export-format';

const sample = {
  step: 3,
  line: 7,
  request_id: 'r-7',
  input: 'user\nWhat is 2+2?',
  output: '=HYPERLINK("http://x","click") then "4", done',
  gts: '4',
  score: -1,
  extras: { acc: false, data_source: 'math' },
};

describe('the export formats', () => {
  it('writes JSONL in verl line shape, extras at the top level', () => {
    expect(JSON.parse(serialise([sample], 'jsonl'))).toEqual({
      step: 3,
      line: 7,
      request_id: 'r-7',
      input: sample.input,
      output: sample.output,
      gts: '4',
      score: -1,
      acc: false,
      data_source: 'math',
    });
  });

  it('writes CSV with a column per extra, quoting what must be, and no live formula', () => {
    const [header, row] = serialise([sample], 'csv').split('\r\n');
    expect(header).toBe('step,line,request_id,score,gts,acc,data_source,input,output');
    expect(row).toBe(
      `3,7,r-7,-1,4,false,math,"user\nWhat is 2+2?","'=HYPERLINK(""http://x"",""click"") then ""4"", done"`,
    );
    // Numbers stay numbers: a negative score is not text that reads as a formula.
    expect(csvField(-1)).toBe('-1');
    expect(csvField('-1')).toBe("'-1");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
  });
});
