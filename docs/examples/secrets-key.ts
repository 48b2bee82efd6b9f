/**
 * The secrets guide's code (docs/secrets.md): a storage handed its journal key in code rather than
 * through GNL_JOURNAL_KEY. The guide's code blocks are the #region parts of this file
 * (docs/examples/code-blocks.test.ts); type-checked with the rest, never run (it would connect).
 */
// #region storage
import { journalKeyFrom, PostgresStorage } from '@/lib/durable/storage';

const storage = new PostgresStorage({
  connectionString: process.env.DATABASE_URL!,
  secrets: { key: journalKeyFrom(mySecretStore.get('gnl-journal-key')), extraFields: ['iban'] },
});
// #endregion

/** The reader's own secret store, in the guide. */
declare const mySecretStore: { get(name: string): string };

export { storage };
