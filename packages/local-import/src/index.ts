// A command's imports (tasks, rollout dumps, corpora) into the database it names: straight in, or, when a running
// `fusebox serve` holds the embedded data directory, through that server's local import routes.
export { holdingServer } from './holding-server';
export {
  CORPUS_IMPORT_PATH,
  type CorpusImportEvent,
  corpusImportRequestSchema,
  ROLLOUTS_IMPORT_PATH,
  type RolloutsImportEvent,
  TASKS_IMPORT_PATH,
  type TasksImportEvent,
  rolloutsImportRequestSchema,
  tasksImportRequestSchema,
} from './import-protocol';
export type { Importer } from './importer';
export { type OpenedImporter, openImporter } from './open-importer';
export { ServerImportError } from './server-import-error';
