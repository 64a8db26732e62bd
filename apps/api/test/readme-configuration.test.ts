import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { envSchema, readEnv } from '../src/env';

/** The rows of the README's configuration table: variable → its default cell. */
async function configurationTable(): Promise<Map<string, string>> {
  const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
  const section = readme.split('\n## Configuration\n')[1]?.split('\n## ')[0] ?? '';
  const rows = [...section.matchAll(/^\| `([A-Z_]+)` +\| ([^|]+?) +\|/gm)];
  return new Map(rows.map(([, name, fallback]) => [name!, fallback!]));
}

describe("the README's configuration table", () => {
  it('lists exactly the environment variables the server reads', async () => {
    const table = await configurationTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(envSchema.shape).sort());
  });

  it('gives each its real default', async () => {
    const defaults = readEnv({});
    for (const [name, fallback] of await configurationTable()) {
      const actual = defaults[name as keyof typeof defaults];
      const literal = /^`([^`]+)`$/.exec(fallback)?.[1];
      if (fallback === 'unset') expect(actual, name).toBeUndefined();
      // Literal defaults must match; described ones ("the number of cores") are computed at start-up.
      else if (literal !== undefined && actual !== undefined) expect(String(actual), name).toBe(literal);
    }
  });
});
