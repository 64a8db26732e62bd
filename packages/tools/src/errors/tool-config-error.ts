import { ToolsError } from './tools-error';

/**
 * A tool config file cannot be used. `file` is the path (or `<text>` for inline YAML), `entry` the index in
 * `tools:` (null when the whole file is wrong) and `key` the offending key path, e.g. `config.sandbox_fusion_url`.
 *
 * @example
 * // tool_config.yaml: tools[0]: config.sandbox_fusion_url: missing required key
 * console.error((error as ToolConfigError).key);
 */
export class ToolConfigError extends ToolsError {
  readonly file: string;
  readonly entry: number | null;
  readonly key: string | null;

  constructor(
    file: string,
    entry: number | null,
    key: string | null,
    problem: string,
    options?: ErrorOptions,
  ) {
    const where = [file, entry === null ? null : `tools[${entry}]`, key]
      .filter((part) => part !== null)
      .join(': ');
    super('FUSEBOX_TOOLS_CONFIG', `${where}: ${problem}`, options);
    this.file = file;
    this.entry = entry;
    this.key = key;
  }
}
