export { TOOLS_ERROR_CODES, ToolsError, isToolsError, type ToolsErrorCode } from './tools-error';
export { UnknownInstanceError } from './unknown-instance-error';
export { ToolConfigError } from './tool-config-error';
export { GenerateError } from './generate-error';
