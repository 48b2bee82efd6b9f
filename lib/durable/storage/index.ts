/** Journal adapters. Applications import from here; the core never does. */
export { PostgresStorage, type PostgresStorageOptions } from './postgres-storage';
// Postgres's lock statements, for the layers above that need them (the executor's takeover, the runs
// page's lapsed leases, the sign-in limit): built here, so no layer above queries the lock table itself.
export { advisoryKey, lockIds, runLockHeld, terminateRunHolders } from './run-locks';
export { lockForTransaction } from './transaction-locks';
export { PGliteStorage, type PGliteStorageOptions, EMBEDDED_DURABILITY_NOTE } from './pglite-storage';
export { dataDirFromEnv } from './data-dir';
export { closeStorage, storageFromEnv, secretsFromEnv, type Storage } from './storage-from-env';
export type { StorageCapabilities } from './capabilities';
export { DataDirLockedError } from './folder-lock';
export { withBlobPlaceholders } from './payload-blobs';
export type { RunEraser, EraseRequest } from './postgres-journal';
export type { EraseOutcome, ErasureRecord } from './run-key-rows';
export { journalKeyFrom, type JournalKey, JournalSecrets, type JournalSecretsOptions } from '../internal';
