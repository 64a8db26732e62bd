// A module-resolution hook for `fusebox` run from this checkout: it adds the `@fusebox/source` export condition,
// so the workspace's SDK packages load from their TypeScript source rather than from a build they may not have
// (docs/DEVELOPING.md). `node --conditions=@fusebox/source` does the same from the command line.
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, { ...context, conditions: [...context.conditions, '@fusebox/source'] });
}
