// The SandboxFusion wire protocol, shared by this client and by Fusebox's servers: one import for every schema.
export * from './protocol/languages';
export * from './protocol/command-run-result';
export * from './protocol/run-status';
export * from './protocol/files';
export * from './protocol/run-code';
export * from './protocol/run-jupyter';
export * from './protocol/ping';
export * from './protocol/test-config';
export * from './protocol/prompt';
export * from './protocol/eval-result';
export * from './protocol/datasets';
export * from './protocol/validation-detail';
