import { describe, expect, it } from 'vitest';
import { CODE_INTERPRETER_SCHEMA } from '../src/code-interpreter-tool';
import { Gsm8kTool } from '../src/gsm8k-tool';
import { parseToolSchema, toolSchemaJson } from '../src/tool-schema';
import {
  QWEN_DEFAULT_SYSTEM_PROMPT,
  renderToolsSystemPrompt,
  systemPromptWithTools,
} from '../src/tools-system-prompt';
import { SEED_SYSTEM_PROMPT, SEED_TOOLS_BLOCK } from '@fusebox/testing/seed-sample';

const codeInterpreterSchema = CODE_INTERPRETER_SCHEMA;

describe('tool schemas as the model sees them', () => {
  it('serialises like verl, with "enum": null and "strict": false', () => {
    expect(toolSchemaJson(parseToolSchema(codeInterpreterSchema))).toBe(
      '{"type": "function", "function": {"name": "code_interpreter", "description": "A tool for executing code.", "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "The code to execute.", "enum": null}}, "required": ["code"]}, "strict": false}}',
    );
  });

  it('keeps verl key order whatever order the config wrote', () => {
    const shuffled = {
      function: {
        strict: false,
        parameters: {
          required: ['code'],
          properties: { code: { description: 'The code to execute.', type: 'string' } },
          type: 'object',
        },
        description: 'A tool for executing code.',
        name: 'code_interpreter',
      },
      type: 'function',
    };
    expect(toolSchemaJson(parseToolSchema(shuffled))).toBe(
      toolSchemaJson(parseToolSchema(codeInterpreterSchema)),
    );
  });

  it('rejects a schema without a function name, naming the path', () => {
    expect(() => parseToolSchema({ type: 'function', function: { description: 'x' } })).toThrow(/name/);
  });
});

describe('renderToolsSystemPrompt', () => {
  it("reproduces the seed sample's # Tools block byte for byte", () => {
    expect(renderToolsSystemPrompt([parseToolSchema(codeInterpreterSchema)])).toBe(SEED_TOOLS_BLOCK);
  });

  it('lists one schema per line, in the order given', () => {
    const block = renderToolsSystemPrompt([parseToolSchema(codeInterpreterSchema), new Gsm8kTool()]);
    const lines = block.slice(block.indexOf('<tools>\n') + 8, block.indexOf('\n</tools>')).split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { function: { name: string } }).function.name)).toEqual([
      'code_interpreter',
      'calc_gsm8k_reward',
    ]);
  });

  it("appends the block to the system prompt, or to Qwen's default when there is none", () => {
    const schema = parseToolSchema(codeInterpreterSchema);
    expect(systemPromptWithTools(SEED_SYSTEM_PROMPT, [schema])).toBe(
      `${SEED_SYSTEM_PROMPT}\n\n${SEED_TOOLS_BLOCK}`,
    );
    expect(systemPromptWithTools(undefined, [schema])).toBe(
      `${QWEN_DEFAULT_SYSTEM_PROMPT}\n\n${SEED_TOOLS_BLOCK}`,
    );
    expect(systemPromptWithTools('plain', [])).toBe('plain');
  });
});
