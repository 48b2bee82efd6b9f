/**
 * The storage the environment asks for: Postgres when DATABASE_URL is set, else the embedded journal
 * in GNL_DATA_DIR (default .gnl/data in the working directory; made private to this user by
 * PGliteStorage: private-folder.ts). The only reader of DATABASE_URL, and
 * of GNL_JOURNAL_KEY (the key secrets are encrypted with in the journal; docs/secrets.md) and
 * GNL_JOURNAL_KEY_PREVIOUS (earlier keys, read-only, after a rotation) beside GNL_SECRET_FIELDS (names
 * added to the redaction list) and GNL_RUN_KEYS (on: every new run's data sealed with a key of its
 * own, so it can be erased; docs/erasure.md) and GNL_READ_DATABASE_URL (a streaming replica for the
 * Studio's listings: read-replica.ts). One storage per process.
 */
import { JournalSecrets, journalKeyFrom } from '../internal';
import { PGliteStorage } from './pglite-storage';
import { PostgresStorage } from './postgres-storage';
import { dataDirFromEnv } from './data-dir';

export type Storage = PostgresStorage | PGliteStorage;

const key = Symbol.for('gnl.storage.fromEnv');

export function storageFromEnv(env: NodeJS.ProcessEnv = process.env): Storage {
  const global = globalThis as Record<symbol, Storage | undefined>;
  if (global[key]) return global[key];
  const secrets = secretsFromEnv(env);
  const readConnectionString = env.GNL_READ_DATABASE_URL?.trim() || undefined;
  if (readConnectionString && !env.DATABASE_URL)
    throw new Error(
      'GNL_READ_DATABASE_URL names a read replica of the journal on Postgres, but DATABASE_URL is not set: the embedded journal has none (docs/operations.md#read-replica).',
    );
  global[key] = env.DATABASE_URL
    ? new PostgresStorage({ connectionString: env.DATABASE_URL, secrets, ...(readConnectionString ? { readConnectionString } : {}) })
    : new PGliteStorage({ dataDir: dataDirFromEnv(env), secrets });
  return global[key];
}

/**
 * Closes `storage` and, when it is the process's storage from the environment, forgets it: the next
 * storageFromEnv() opens a new one, from the environment as it is then. For a program that runs the
 * command line more than once (each command gives its journal back at its end; lib/cli/session.ts).
 */
export async function closeStorage(storage: Storage): Promise<void> {
  const global = globalThis as Record<symbol, Storage | undefined>;
  if (global[key] === storage) global[key] = undefined;
  await storage.close();
}

/** The journal's secrets rules from GNL_JOURNAL_KEY and GNL_SECRET_FIELDS; a malformed key is an error at start. */
export function secretsFromEnv(env: Record<string, string | undefined>): JournalSecrets {
  const extraFields = (env.GNL_SECRET_FIELDS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const journalKey = env.GNL_JOURNAL_KEY ? journalKeyFrom(env.GNL_JOURNAL_KEY, 'GNL_JOURNAL_KEY') : undefined;
  // After a rotation: the earlier keys, comma-separated, to read what they sealed (new secrets use GNL_JOURNAL_KEY).
  const previousKeys = (env.GNL_JOURNAL_KEY_PREVIOUS ?? '')
    .split(',')
    .map((text) => text.trim())
    .filter(Boolean)
    .map((text, i) => journalKeyFrom(text, `GNL_JOURNAL_KEY_PREVIOUS (key ${i + 1})`));
  const runKeys = (env.GNL_RUN_KEYS ?? 'off').trim().toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0', ''].includes(runKeys)) throw new Error(`GNL_RUN_KEYS must be on or off (got "${env.GNL_RUN_KEYS}").`);
  return new JournalSecrets({
    extraFields,
    runKeys: ['on', 'true', '1'].includes(runKeys),
    ...(journalKey ? { key: journalKey } : {}),
    ...(previousKeys.length ? { previousKeys } : {}),
    onClearText: (where) =>
      process.stderr.write(
        `gnl: warning: ${where} is a secret and GNL_JOURNAL_KEY is not set, so it is stored in clear in the journal (shown redacted). Set GNL_JOURNAL_KEY to 32 random bytes (base64) to encrypt secrets: docs/secrets.md\n`,
      ),
  });
}
