/**
 * Secrets sealed at the journal's boundary. JournalSecrets (secret-journal.ts) seals each event type's
 * user-data fields before an append and opens them on read; secret-box.ts is the cipher and the journal
 * key; run-keys.ts a run's own data key, wrapped by the journal key, and the erasure that drops it
 * (RunErasedError, docs/erasure.md). Which fields are secret: ../secrets.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export { ERASED_TEXT, RunErasedError, type RunErasure, RunKeyRing, type RunKeyState } from './run-keys';
export { JournalSecrets, type JournalSecretsOptions } from './secret-journal';
export { journalKeyFrom, type JournalKey } from './secret-box';
