import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ZodError } from 'zod';
import type { BaseTool } from './base-tool';
import { CodeInterpreterTool } from './code-interpreter-tool';
import { ToolConfigError } from './errors/tool-config-error';
import { Gsm8kTool } from './gsm8k-tool';
import { firstZodProblem } from './parse-options';
import { SearchTool } from './search-tool';
import { type ToolSchemaInput, parseToolSchema } from './tool-schema';

/**
 * A tool class a config can name: constructed with the entry's `config` and `tool_schema`. A class may carry a
 * static `defaultSchema` for entries that give none, as verl's `get_openai_tool_schema`.
 *
 * @example
 * await loadToolsFromYaml(file, { classes: { 'my_project.tools.SearchTool': SearchTool satisfies ToolClass } });
 */
export type ToolClass = (new (config: Record<string, unknown>, schema: ToolSchemaInput) => BaseTool) & {
  defaultSchema?: ToolSchemaInput;
};

/**
 * The classes a config can name without registering anything: verl's class paths, so verl's files load
 * unchanged, and Fusebox's own names.
 *
 * @example
 * Object.keys(BUILTIN_TOOL_CLASSES); // ['verl.tools.sandbox_fusion_tools.SandboxFusionTool', …]
 */
export const BUILTIN_TOOL_CLASSES: Readonly<Record<string, ToolClass>> = {
  'verl.tools.sandbox_fusion_tools.SandboxFusionTool': CodeInterpreterTool,
  'verl.tools.gsm8k_tool.Gsm8kTool': Gsm8kTool,
  'verl.tools.search_tool.SearchTool': SearchTool,
  CodeInterpreterTool,
  Gsm8kTool,
  SearchTool,
};

/**
 * Options of `loadToolsFromYaml`.
 *
 * @example
 * await loadToolsFromYaml(file, { signal: AbortSignal.timeout(5_000) } satisfies LoadToolsOptions);
 */
export interface LoadToolsOptions {
  /** More classes by name, e.g. `{ 'my_project.tools.SearchTool': SearchTool }`; they win over built-ins. */
  classes?: Record<string, ToolClass>;
  signal?: AbortSignal;
}

const INLINE = '<text>';

/**
 * Reads a verl tool config (`tools: [{ class_name, config, tool_schema }]`), from a path or from YAML text,
 * and constructs its tools in order. Anything wrong (bad YAML, an unknown class, an MCP entry, a missing or bad
 * config key such as `sandbox_fusion_url`, an invalid schema, a duplicate tool name) throws ToolConfigError
 * naming the file, the entry and the key; tools built before the error are closed.
 *
 * @example
 * const tools = await loadToolsFromYaml('examples/sglang_multiturn/config/tool_config/sandbox_fusion_tool_config.yaml');
 * tools[0].name; // 'code_interpreter'
 */
export async function loadToolsFromYaml(
  source: string | URL,
  options: LoadToolsOptions = {},
): Promise<BaseTool[]> {
  const classes = { ...BUILTIN_TOOL_CLASSES, ...options.classes };
  for (const [name, cls] of Object.entries(classes)) {
    if (typeof cls !== 'function') throw new TypeError(`expected options.classes.${name} to be a tool class`);
  }
  const { file, text } = await readSource(source, options.signal);
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new ToolConfigError(file, null, null, `invalid YAML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const entries = (document as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(entries))
    throw new ToolConfigError(file, null, 'tools', 'expected a list of tool entries');

  const tools: BaseTool[] = [];
  try {
    for (const [index, entry] of entries.entries()) {
      const tool = buildTool(file, index, entry, classes);
      if (tools.some((other) => other.name === tool.name)) {
        await tool.close();
        throw new ToolConfigError(
          file,
          index,
          'tool_schema.function.name',
          `a tool named ${tool.name} is already defined`,
        );
      }
      tools.push(tool);
    }
  } catch (error) {
    await Promise.allSettled(tools.map((tool) => tool.close()));
    throw error;
  }
  return tools;
}

function buildTool(
  file: string,
  index: number,
  entry: unknown,
  classes: Record<string, ToolClass>,
): BaseTool {
  if (typeof entry !== 'object' || entry === null) {
    throw new ToolConfigError(
      file,
      index,
      null,
      'expected a mapping with class_name, config and tool_schema',
    );
  }
  const { class_name: className, config = {}, tool_schema: schema } = entry as Record<string, unknown>;
  if (typeof className !== 'string')
    throw new ToolConfigError(file, index, 'class_name', 'missing required key');
  const cls = classes[className];
  if (!cls) {
    const known = Object.keys(classes).join(', ');
    throw new ToolConfigError(
      file,
      index,
      'class_name',
      `unknown class ${className}; known classes: ${known}`,
    );
  }
  if (typeof config !== 'object' || config === null)
    throw new ToolConfigError(file, index, 'config', 'expected a mapping');
  const type = (config as { type?: unknown }).type ?? 'native';
  if (type !== 'native') {
    throw new ToolConfigError(
      file,
      index,
      'config.type',
      `only native tools are supported, got ${JSON.stringify(type)}`,
    );
  }
  const given = (schema ?? cls.defaultSchema) as ToolSchemaInput | undefined;
  if (given === undefined) {
    throw new ToolConfigError(
      file,
      index,
      'tool_schema',
      `missing required key (${className} has no default schema)`,
    );
  }
  try {
    parseToolSchema(given);
  } catch (error) {
    throw fromZod(file, index, 'tool_schema', error);
  }
  try {
    return new cls(config as Record<string, unknown>, given);
  } catch (error) {
    throw fromZod(file, index, 'config', error);
  }
}

// Tools report bad options as a TypeError caused by the zod error, which still holds the key path.
function fromZod(file: string, index: number, prefix: string, error: unknown): ToolConfigError {
  const cause = (error as Error).cause;
  if (!(error instanceof TypeError && cause instanceof ZodError)) {
    return new ToolConfigError(file, index, null, (error as Error).message, { cause: error });
  }
  const { path, problem } = firstZodProblem(cause);
  return new ToolConfigError(file, index, [prefix, ...path].join('.'), problem, { cause });
}

async function readSource(
  source: string | URL,
  signal?: AbortSignal,
): Promise<{ file: string; text: string }> {
  if (source instanceof URL)
    return { file: fileURLToPath(source), text: await readFile(source, { encoding: 'utf8', signal }) };
  if (typeof source !== 'string') throw new TypeError('expected a path, a file URL or YAML text');
  // A path is one line; YAML text with a `tools:` key has at least that key on its first line.
  if (source.includes('\n') || /^\s*tools\s*:/.test(source)) return { file: INLINE, text: source };
  try {
    return { file: source, text: await readFile(source, { encoding: 'utf8', signal }) };
  } catch (error) {
    signal?.throwIfAborted();
    throw new ToolConfigError(source, null, null, `cannot read the file (${(error as Error).message})`, {
      cause: error,
    });
  }
}
