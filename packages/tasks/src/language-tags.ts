import { LANGUAGES, type Language } from '@fusebox/sandbox-client/protocol';

/**
 * Other names a language goes by in Markdown fences and in datasets (```py, "javascript"), besides its own
 * `/run_code` name.
 */
const ALIASES: Partial<Record<Language, string[]>> = {
  python: ['py', 'python3', 'py3'],
  nodejs: ['javascript', 'js', 'node', 'mjs'],
  typescript: ['ts'],
  cpp: ['c++', 'cc', 'cxx'],
  bash: ['sh', 'shell', 'zsh'],
  csharp: ['cs', 'c#'],
  rust: ['rs'],
  ruby: ['rb'],
  perl: ['pl'],
  R: ['r'],
  kotlin_script: ['kotlin', 'kts'],
  go: ['golang'],
};

const BY_TAG = new Map<string, Language>();
for (const language of LANGUAGES) {
  BY_TAG.set(language.toLowerCase(), language);
  for (const alias of ALIASES[language] ?? []) BY_TAG.set(alias, language);
}

/** The `/run_code` language a fence tag or dataset label names, case-insensitively; undefined if none. */
export function languageOfTag(tag: string): Language | undefined {
  return BY_TAG.get(tag.trim().toLowerCase());
}
