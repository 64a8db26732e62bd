export { ToolsError, isToolsError } from './tools-error';
export { UnknownInstanceError } from './unknown-instance-error';
export { ToolConfigError } from './tool-config-error';
export { GenerateError } from './generate-error';
