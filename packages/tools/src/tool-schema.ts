import { z } from 'zod';
import { parseOptions } from './parse-options';
import { pythonJsonDumps } from './python-json';

// The zod objects mirror verl's pydantic models field for field and in the same order, so that serialising a
// parsed schema gives the same key order as pydantic's `model_dump()`. Unknown keys are dropped, as pydantic
// drops them: the prompt verl renders never shows them either.
const propertySchema = z.object({
  type: z.string(),
  description: z.string().nullable().default(null),
  enum: z.array(z.string()).nullable().default(null),
});

const parametersSchema = z.object({
  type: z.string(),
  properties: z.record(z.string(), propertySchema),
  required: z.array(z.string()),
});

const functionSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  parameters: parametersSchema.default({ type: 'object', properties: {}, required: [] }),
  strict: z.boolean().default(false),
});

/**
 * zod schema of an OpenAI function tool schema, with verl's defaults (`enum: null`, `strict: false`).
 *
 * @example
 * toolSchemaSchema.safeParse(input).success;
 */
export const toolSchemaSchema = z.object({
  type: z.string(),
  function: functionSchema,
});

/**
 * An OpenAI function tool schema exactly as verl models it (`OpenAIFunctionToolSchema`): every optional field is
 * present, as null or its default, because verl's prompts show them that way.
 *
 * @example
 * const schema: ToolSchema = tool.schema;
 */
export type ToolSchema = z.output<typeof toolSchemaSchema>;

/**
 * What a caller may write: the optional fields can be left out.
 *
 * @example
 * const input: ToolSchemaInput = { type: 'function', function: { name: 'now', description: 'The time.' } };
 */
export type ToolSchemaInput = z.input<typeof toolSchemaSchema>;

/**
 * Validates a tool schema and fills verl's defaults. Throws a TypeError naming the key (`schema.function.name: …`).
 *
 * @example
 * const schema = parseToolSchema({
 *   type: 'function',
 *   function: {
 *     name: 'code_interpreter',
 *     description: 'A tool for executing code.',
 *     parameters: { type: 'object', properties: { code: { type: 'string', description: 'The code to execute.' } }, required: ['code'] },
 *   },
 * });
 * schema.function.strict; // false
 */
export function parseToolSchema(input: unknown): ToolSchema {
  return parseOptions(toolSchemaSchema, input, 'schema');
}

/**
 * The schema as the model sees it in verl's prompt: `{"type": "function", "function": {…, "enum": null}, …,
 * "strict": false}}`, with Python's separators.
 *
 * @example
 * toolSchemaJson(schema).endsWith('"strict": false}}'); // true
 */
export function toolSchemaJson(schema: ToolSchema): string {
  return pythonJsonDumps(schema);
}
