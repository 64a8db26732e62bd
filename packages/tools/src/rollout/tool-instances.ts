import type { BaseTool } from '../base-tool';
import type { ToolsKwargs } from './episode';

/** One tool's instance for the episode. */
export interface ToolInstance {
  tool: BaseTool;
  instanceId: string;
}

/**
 * Creates one instance of every tool before the first turn, with the sample's `create_kwargs` (verl's sglang
 * rollout does the same; its agent loop instead creates and releases around every call, which loses state
 * between calls). If one creation fails, the ones already created are released before the error propagates.
 */
export async function createToolInstances(
  tools: readonly BaseTool[],
  toolsKwargs: ToolsKwargs,
  signal: AbortSignal,
): Promise<ToolInstance[]> {
  const created = await Promise.allSettled(
    tools.map(async (tool) => {
      const kwargs = { ...toolsKwargs[tool.name]?.create_kwargs, signal };
      const { instanceId } = await tool.create(undefined, kwargs);
      return { tool, instanceId };
    }),
  );
  const instances = created.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failure = created.find((outcome) => outcome.status === 'rejected');
  if (failure) {
    await Promise.allSettled(instances.map(({ tool, instanceId }) => tool.release(instanceId)));
    throw failure.reason;
  }
  return instances;
}

/**
 * Scores then releases every instance, whatever happened to the episode. Runs without the episode's signal, so
 * an aborted episode still frees its instances; a failing call is reported, never thrown, so every instance gets
 * its release.
 */
export async function finishToolInstances(
  instances: readonly ToolInstance[],
  toolsKwargs: ToolsKwargs,
): Promise<{ rewards: Record<string, number>; errors: string[] }> {
  const rewards: Record<string, number> = {};
  const errors: string[] = [];
  await Promise.all(
    instances.map(async ({ tool, instanceId }) => {
      const kwargs = toolsKwargs[tool.name] ?? {};
      try {
        rewards[tool.name] = await tool.calcReward(instanceId, { ...kwargs.calc_reward_kwargs });
      } catch (error) {
        errors.push(`${tool.name}.calcReward: ${(error as Error).message}`);
      }
      try {
        await tool.release(instanceId, { ...kwargs.release_kwargs });
      } catch (error) {
        errors.push(`${tool.name}.release: ${(error as Error).message}`);
      }
    }),
  );
  return { rewards, errors };
}
