// Moving a whole Fusebox database between modes or machines: one consistent export file, imported elsewhere.
export { DataTransferError } from './data-transfer-error';
export { type ExportSummary, type TransferProgress, exportDatabase } from './export-database';
export { type ImportSummary, importDatabase } from './import-database';
