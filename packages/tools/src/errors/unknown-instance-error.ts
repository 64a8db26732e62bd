import { ToolsError } from './tools-error';

/**
 * A tool was asked to execute, score or release an instance it does not hold: the id was never created, or it
 * was already released (verl raises a bare KeyError here).
 *
 * @example
 * await tool.release(id).catch((error: unknown) => error instanceof UnknownInstanceError || Promise.reject(error));
 */
export class UnknownInstanceError extends ToolsError {
  readonly tool: string;
  readonly instanceId: string;

  constructor(tool: string, instanceId: string) {
    super(
      'FUSEBOX_TOOLS_UNKNOWN_INSTANCE',
      `tool ${tool} has no instance ${JSON.stringify(instanceId)}: it was never created or was already released`,
    );
    this.tool = tool;
    this.instanceId = instanceId;
  }
}
