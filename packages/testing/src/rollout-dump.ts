import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A dump line in verl's shape; tests override what they look at. */
export function dumpLine(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    input: 'system\nYou are a math expert.\nuser\nWhat is 6 * 7?\nassistant\n',
    output:
      'assistant\n<think>\nMultiply.\n</think>\n<tool_call>\n{"name": "code_interpreter", "arguments": {"code": "print(6 * 7)"}}\n</tool_call>\ntool\n42\n\nassistant\n#### 42',
    gts: '42',
    score: 1.0,
    step: 1,
    acc: true,
    pred: '42',
    ...overrides,
  };
}

/** Writes `{step}.jsonl` files (raw strings are written as-is, objects as JSON) into a fresh directory. */
export async function writeDump(
  files: Record<string, (Record<string, unknown> | string)[]>,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fusebox-dump-'));
  for (const [name, lines] of Object.entries(files)) {
    const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
    await writeFile(join(dir, name), lines.length ? `${text}\n` : '');
  }
  return dir;
}
