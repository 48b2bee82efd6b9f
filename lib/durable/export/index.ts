/**
 * A run's journal as JSON lines and back (gnl export / import, the Studio's Export): exportRun writes one
 * (secrets redacted unless revealed), parseRunExport and planImport read and check one; storage's
 * run-import.ts writes it back as recorded.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export {
  exportRun,
  exportText,
  parseRunExport,
  planImport,
  RUN_EXPORT_FORMAT,
  RUN_EXPORT_VERSION,
  type RunExport,
  type RunExportHeader,
  type ExportRunOptions,
  type ParsedRunExport,
  type ImportPlan,
} from './run-export';
