import { describe, expect, it } from 'vitest';
import { serialise } from '../src/rollouts/export-format';

/**
 * A CSV export's columns are named after the samples' extra fields, whose names come from the dump (a reward
 * function's extras): a name is as untrusted as a value, so the header row gets the same defusing and quoting.
 */
describe('the CSV export header', () => {
  const sample = (extras: Record<string, unknown>) => ({
    step: 1,
    line: 1,
    request_id: 'r',
    input: 'in',
    output: 'out',
    gts: 'g',
    score: 1,
    extras,
  });

  it('never starts a column name with a live formula', () => {
    const [header] = serialise([sample({ '=HYPERLINK("http://x","y")': 1 })], 'csv').split('\r\n');
    expect(header).toBe(`step,line,request_id,score,gts,"'=HYPERLINK(""http://x"",""y"")",input,output`);
  });

  it('keeps one column per name when a name holds a comma, a quote or a line break', () => {
    const csv = serialise([sample({ 'a,b': 1, 'c\r\nd': 2 })], 'csv');
    expect(csv).toBe(
      'step,line,request_id,score,gts,"a,b","c\r\nd",input,output\r\n1,1,r,1,g,1,2,in,out\r\n',
    );
  });

  it('leaves ordinary names as they are (control)', () => {
    const [header] = serialise([sample({ acc: true })], 'csv').split('\r\n');
    expect(header).toBe('step,line,request_id,score,gts,acc,input,output');
  });
});
