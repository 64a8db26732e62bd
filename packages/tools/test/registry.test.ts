import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BaseTool, type ToolExecution } from '../src/base-tool';
import { CodeInterpreterTool } from '../src/code-interpreter-tool';
import { ToolConfigError } from '../src/errors/tool-config-error';
import { Gsm8kTool } from '../src/gsm8k-tool';
import { loadToolsFromYaml } from '../src/registry';
import { toolSchemaJson } from '../src/tool-schema';
import {
  GSM8K_TOOL_CONFIG,
  SANDBOX_FUSION_TEST_TOOL_CONFIG,
  SANDBOX_FUSION_TOOL_CONFIG,
} from '@fusebox/testing/verl-yaml';

const dir = await mkdtemp(join(tmpdir(), 'fusebox-registry-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

async function load(...args: Parameters<typeof loadToolsFromYaml>) {
  const tools = await loadToolsFromYaml(...args);
  await Promise.all(tools.map((tool) => tool.close()));
  return tools;
}

async function loadError(text: string): Promise<ToolConfigError> {
  const error = await loadToolsFromYaml(text).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ToolConfigError);
  return error as ToolConfigError;
}

describe('loadToolsFromYaml', () => {
  it("registers verl's sandbox fusion tool config unchanged: 1 schema, code_interpreter, verl's settings", async () => {
    const tools = await load(SANDBOX_FUSION_TOOL_CONFIG);
    expect(tools).toHaveLength(1);
    const [tool] = tools;
    expect(tool).toBeInstanceOf(CodeInterpreterTool);
    expect(tool?.name).toBe('code_interpreter');
    expect(toolSchemaJson(tool!.schema)).toBe(
      '{"type": "function", "function": {"name": "code_interpreter", "description": "A tool for executing code.", "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "The code to execute.", "enum": null}}, "required": ["code"]}, "strict": false}}',
    );
  });

  it("fills verl's defaults when the config gives only the URL", async () => {
    const [tool] = await load(SANDBOX_FUSION_TEST_TOOL_CONFIG);
    expect((tool as CodeInterpreterTool).settings).toMatchObject({
      num_workers: 10,
      rate_limit: 10,
      default_timeout: 30,
      default_language: 'python',
      enable_global_rate_limit: true,
      memory_limit_mb: 1024,
      compat: 'fusebox',
    });
  });

  it("reads verl's gsm8k config from a file", async () => {
    const file = join(dir, 'gsm8k_tool_config.yaml');
    await writeFile(file, GSM8K_TOOL_CONFIG);
    const [tool] = await load(file);
    expect(tool).toBeInstanceOf(Gsm8kTool);
    expect(tool?.name).toBe('calc_gsm8k_reward');
  });

  it('accepts Fusebox class names and the tool’s default schema when none is given', async () => {
    const tools = await load(
      'tools:\n  - class_name: CodeInterpreterTool\n    config: { sandbox_fusion_url: "http://127.0.0.1:8080/run_code" }\n  - class_name: Gsm8kTool\n',
    );
    expect(tools.map((tool) => tool.name)).toEqual(['code_interpreter', 'calc_gsm8k_reward']);
  });

  it('registers user classes', async () => {
    class WeatherTool extends BaseTool {
      protected initialState() {
        return {};
      }
      execute(): Promise<ToolExecution> {
        return Promise.resolve({ response: { text: 'sunny' }, reward: null, metrics: {} });
      }
    }
    const text =
      'tools:\n  - class_name: my_project.tools.WeatherTool\n    config: { type: native }\n    tool_schema: { type: function, function: { name: weather, description: Weather. } }\n';
    const [tool] = await load(text, { classes: { 'my_project.tools.WeatherTool': WeatherTool } });
    expect(tool).toBeInstanceOf(WeatherTool);
  });

  it('names the file, the entry and the key of every problem', async () => {
    const file = join(dir, 'broken.yaml');
    await writeFile(
      file,
      'tools:\n  - class_name: "verl.tools.gsm8k_tool.Gsm8kTool"\n    config: [unclosed\n',
    );
    await expect(loadToolsFromYaml(file)).rejects.toThrow(new RegExp(`^${file}: invalid YAML`));

    const missingUrl = await loadError(
      SANDBOX_FUSION_TOOL_CONFIG.replace(/ {6}sandbox_fusion_url: .*\n/, ''),
    );
    expect(missingUrl).toMatchObject({ file: '<text>', entry: 0, key: 'config.sandbox_fusion_url' });
    expect(missingUrl.message).toBe('<text>: tools[0]: config.sandbox_fusion_url: missing required key');

    const unknown = await loadError(
      `${GSM8K_TOOL_CONFIG}\n  - class_name: verl.tools.geo3k_tool.Geo3kTool\n    config: { type: native }\n`,
    );
    expect(unknown).toMatchObject({ entry: 1, key: 'class_name' });
    expect(unknown.message).toMatch(
      /unknown class verl\.tools\.geo3k_tool\.Geo3kTool; known classes: verl\.tools\.sandbox_fusion_tools/,
    );

    const searchWithoutUrl = await loadError(
      `${GSM8K_TOOL_CONFIG}\n  - class_name: verl.tools.search_tool.SearchTool\n    config: { type: native }\n`,
    );
    expect(searchWithoutUrl.message).toBe(
      '<text>: tools[1]: config.retrieval_service_url: missing required key',
    );

    const badSchema = await loadError(GSM8K_TOOL_CONFIG.replace('type: "string"', 'kind: "string"'));
    expect(badSchema.key).toBe('tool_schema.function.parameters.properties.answer.type');

    const badValue = await loadError(
      SANDBOX_FUSION_TOOL_CONFIG.replace('num_workers: 10', 'num_workers: -2'),
    );
    expect(badValue.key).toBe('config.num_workers');

    const mcp = await loadError(GSM8K_TOOL_CONFIG.replace('type: native', 'type: mcp'));
    expect(mcp.key).toBe('config.type');

    expect((await loadError('tools: 3\n')).key).toBe('tools');
    expect((await loadError(`${GSM8K_TOOL_CONFIG}\n${GSM8K_TOOL_CONFIG.replace('tools:\n', '')}`)).key).toBe(
      'tool_schema.function.name',
    );
  });

  it('constructing a tool directly validates its config up front with a TypeError naming the key', () => {
    expect(() => new CodeInterpreterTool({})).toThrow(
      new TypeError('config.sandbox_fusion_url: missing required key'),
    );
    expect(() => new CodeInterpreterTool({ sandbox_fusion_url: 'ftp://x/run_code' })).toThrow(
      /config\.sandbox_fusion_url: expected the http\(s\) URL/,
    );
    expect(
      () => new Gsm8kTool({}, { type: 'function', function: { description: 'no name' } } as never),
    ).toThrow(/^schema\.function\.name: missing required key$/);
  });

  it('says when the file cannot be read', async () => {
    await expect(loadToolsFromYaml(join(dir, 'missing.yaml'))).rejects.toMatchObject({
      code: 'FUSEBOX_TOOLS_CONFIG',
      entry: null,
    });
  });
});
