/**
 * Which values are secrets and how they look when shown: secret-fields.ts, pure and browser-safe (the
 * Studio's client components use it). Sealing them in the journal, and run keys: ../sealing.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export {
  REDACTED,
  redactSecrets,
  redactingReplacer,
  looksLikeApiKey,
  SecretFields,
  secretFieldsFromEnv,
  DEFAULT_SECRET_FIELDS,
  ENVELOPE_KEY,
} from './secret-fields';
