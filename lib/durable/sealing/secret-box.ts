/**
 * The journal key and the envelope a secret is stored in: AES-256-GCM (node:crypto), a random 96-bit
 * IV per value, the run id as additional data (an envelope copied into another run does not open).
 * `{ "$gnl:enc": "v1:<keyId>:<base64(iv | tag | ciphertext)>" }`. The key id (8 hex characters of a
 * hash of the key) lets a wrong key be named as such instead of failing as "corrupt data".
 *
 * Rotation: the journal is append-only, so an envelope is never re-sealed. New secrets are sealed with
 * the current key; envelopes of earlier keys open with those keys, kept for reading only
 * (GNL_JOURNAL_KEY_PREVIOUS), chosen by the envelope's key id.
 *
 * The core never reads the environment: the key is handed to it (journalKeyFrom, by storageFromEnv).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { JournalDataError } from '../errors';
import { ENVELOPE_KEY } from '../secrets/secret-fields';

const VERSION = 'v1';

export interface JournalKey {
  readonly id: string;
  readonly bytes: Buffer;
}

/** A 32-byte key given as base64 (44 characters) or hex (64 characters). `source` names where it came from in errors. */
export function journalKeyFrom(text: string, source = 'GNL_JOURNAL_KEY'): JournalKey {
  const trimmed = text.trim();
  const hex = /^[0-9a-fA-F]{64}$/.test(trimmed);
  const bytes = hex || /^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed) ? Buffer.from(trimmed, hex ? 'hex' : 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32) {
    throw new JournalDataError(
      `${source} must be 32 random bytes as base64 (44 characters) or hex (64 characters). Make one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`,
    );
  }
  return { id: createHash('sha256').update('gnl-journal-key:').update(bytes).digest('hex').slice(0, 8), bytes };
}

export function seal(key: JournalKey, plaintext: string, context: string): { [ENVELOPE_KEY]: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { [ENVELOPE_KEY]: `${VERSION}:${key.id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}` };
}

/**
 * The plaintext of an envelope, opened with the key whose id it names: the current key or one of
 * `previous` (earlier keys, kept to read what they sealed). `where` names the value in errors (run,
 * event, field path).
 */
export function open(key: JournalKey | undefined, envelope: string, context: string, where: string, previous: readonly JournalKey[] = []): string {
  const [version, keyId, data] = envelope.split(':');
  if (version !== VERSION || !keyId || data === undefined) throw new JournalDataError(`${where} is an encrypted value GNL cannot read (format "${version}").`);
  if (!key && previous.length === 0) {
    throw new JournalDataError(
      `${where} is encrypted in the journal (key ${keyId}) and no journal key is configured: set GNL_JOURNAL_KEY to the key it was written with.`,
    );
  }
  const match = key?.id === keyId ? key : previous.find((k) => k.id === keyId);
  if (!match) {
    const known = [
      key ? `GNL_JOURNAL_KEY is key ${key.id}` : 'GNL_JOURNAL_KEY is not set',
      ...(previous.length ? [`GNL_JOURNAL_KEY_PREVIOUS holds ${previous.map((k) => k.id).join(', ')}`] : []),
    ];
    throw new JournalDataError(
      `${where} is encrypted with journal key ${keyId}, but ${known.join(' and ')}: set the key it was written with (as GNL_JOURNAL_KEY, or in GNL_JOURNAL_KEY_PREVIOUS after a rotation).`,
    );
  }
  const raw = Buffer.from(data, 'base64');
  try {
    const decipher = createDecipheriv('aes-256-gcm', match.bytes, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch (error) {
    throw new JournalDataError(`${where} could not be decrypted with journal key ${match.id}: it was altered or belongs to another run.`, { cause: error });
  }
}
