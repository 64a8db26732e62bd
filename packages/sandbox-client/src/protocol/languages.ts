import { z } from 'zod';

/**
 * Every `language` SandboxFusion accepts, in the order its 422 message lists them (the order is part of that
 * message, so servers that echo it must keep it).
 *
 * @example
 * if (!(LANGUAGES as readonly string[]).includes(input)) throw new TypeError(`unknown language ${input}`);
 */
export const LANGUAGES = [
  'python',
  'cpp',
  'nodejs',
  'go',
  'go_test',
  'java',
  'php',
  'csharp',
  'bash',
  'typescript',
  'sql',
  'rust',
  'cuda',
  'lua',
  'R',
  'perl',
  'D_ut',
  'ruby',
  'scala',
  'julia',
  'pytest',
  'junit',
  'kotlin_script',
  'jest',
  'verilog',
  'python_gpu',
  'lean',
  'swift',
  'racket',
] as const;

/**
 * A language or execution mode of `/run_code`.
 *
 * @example
 * const language: Language = 'python';
 */
export type Language = (typeof LANGUAGES)[number];

/**
 * Validates a {@link Language}; anything else is a 422 `literal_error` on a SandboxFusion server.
 *
 * @example
 * languageSchema.parse('cpp');
 */
export const languageSchema = z.enum(LANGUAGES);
