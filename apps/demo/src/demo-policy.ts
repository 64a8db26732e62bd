import { createOpenAIGenerate, type Generate, scriptedGenerate } from '@fusebox/tools';
import type { ModelPolicy } from './demo-options';

/**
 * The policy the demo rolls out: a real model behind an OpenAI-compatible server when one is given, else the
 * offline script, which plays each episode's planned turns (looked up by request id, as the plan changes every
 * step). A turn the plan lacks fails its episode, naming it.
 */
export function demoPolicy(
  model: ModelPolicy | null,
  scriptOf: (requestId: string) => string[] | undefined,
): Generate {
  if (model) {
    return createOpenAIGenerate({
      baseUrl: model.url,
      model: model.name,
      sampling: { max_tokens: model.maxTokens },
      toolsIn: model.toolsIn,
    });
  }
  return scriptedGenerate((request) => {
    const turn = scriptOf(request.requestId)?.[request.turn];
    if (turn === undefined)
      throw new RangeError(`no scripted turn ${request.turn} for episode ${request.requestId}`);
    return turn;
  });
}
