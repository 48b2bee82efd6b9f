/**
 * Run keys: erasure that keeps the journal append-only (docs/erasure.md). With run keys on, every run
 * gets a data key of its own (32 random bytes) when it is created; the run's user data (the fields each
 * event type declares as such, event-schemas.ts, its stream log and the run row's copies) is sealed with
 * it, and the key is stored wrapped (sealed) by the journal key (GNL_JOURNAL_KEY) in gnl.run_keys, the
 * one table that is not append-only. Erasing a run destroys its wrapped key: its envelopes can no longer
 * be opened by anyone, while the event rows, sequence numbers, times, decisions' authors and the audit of
 * the erasure stay.
 *
 * An envelope sealed with a run key is `{ "$gnl:enc": "r1:<base64(iv | tag | ciphertext)>" }` (AES-256-GCM,
 * the run id as additional data, so an envelope copied into another run does not open there either).
 * Opened after the erasure, every such value reads as ERASED_TEXT.
 *
 * The ring is a cache the storage fills (storage/run-key-rows.ts) before it seals or opens a run's data;
 * sealing and opening are synchronous. Entries live at most `ttlMs`, so a process learns of an erasure
 * made elsewhere within that time for reading; the process that erases forgets at once. Writing never
 * trusts the ring: every append refuses an erased run in its own statement (storage/event-rows.ts) and
 * taking a run reads its key row from the database, so a cache can never hide an erasure from a writer.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { GnlError, JournalDataError } from '../errors';
import { type JournalKey, open, seal } from './secret-box';
import { ENVELOPE_KEY } from '../secrets/secret-fields';

/** What an erased value reads as, wherever it is shown or read. */
export const ERASED_TEXT = '•••• erased';
export const RUN_KEY_VERSION = 'r1';

export interface RunErasure {
  at: Date;
  by: string;
  reason: string;
}

/** A run's key as the ring knows it: live, erased, or none (recorded before run keys: sealed as before). */
export type RunKeyState = { kind: 'live'; key: Buffer } | { kind: 'erased'; erasure: RunErasure } | { kind: 'none' };

export class RunErasedError extends JournalDataError {
  override name = 'RunErasedError';
  readonly runId: string;
  readonly erasure: RunErasure;
  constructor(runId: string, erasure: RunErasure) {
    super(
      `Run "${runId}" was erased by ${erasure.by} at ${erasure.at.toISOString()} (${erasure.reason}): its data can no longer be read, so it cannot run again.`,
    );
    this.runId = runId;
    this.erasure = erasure;
  }
  static override isInstance = (error: unknown): error is RunErasedError => GnlError.isInstance(error) && error.name === 'RunErasedError';
}

const DEFAULT_TTL_MS = 5_000;
const MAX_ENTRIES = 100_000;

export class RunKeyRing {
  private readonly entries = new Map<string, { state: RunKeyState; until: number }>();
  private readonly ttlMs: number;

  /** `journalKey` wraps and unwraps the run keys; `previousKeys` unwrap what earlier journal keys wrapped. */
  constructor(
    readonly journalKey: JournalKey,
    readonly previousKeys: readonly JournalKey[] = [],
    options: { ttlMs?: number } = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  }

  /** A new data key for `runId`, cached, and its wrapped form to store beside the run. */
  create(runId: string): { wrapped: string } {
    const key = randomBytes(32);
    this.remember(runId, { kind: 'live', key });
    return { wrapped: seal(this.journalKey, key.toString('base64'), wrapContext(runId))[ENVELOPE_KEY] };
  }

  /** The state of a key row as stored (`wrapped` null once erased; no row: none). */
  fromRow(
    runId: string,
    row: { wrapped: string | null; erased_at: Date | string | null; erased_by: string | null; erased_reason: string | null } | undefined,
  ): RunKeyState {
    if (!row) return { kind: 'none' };
    if (row.wrapped === null) {
      return { kind: 'erased', erasure: { at: new Date(row.erased_at ?? 0), by: row.erased_by ?? 'unknown', reason: row.erased_reason ?? '' } };
    }
    const text = open(this.journalKey, row.wrapped, wrapContext(runId), `run "${runId}" data key`, this.previousKeys);
    return { kind: 'live', key: Buffer.from(text, 'base64') };
  }

  /** The cached state, if fresh (a stale one stays in use until a fresh one replaces it). */
  cached(runId: string): RunKeyState | undefined {
    const entry = this.entries.get(runId);
    return entry && entry.until >= Date.now() ? entry.state : undefined;
  }

  remember(runId: string, state: RunKeyState): void {
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.delete(runId);
    this.entries.set(runId, { state, until: Date.now() + this.ttlMs });
  }

  forget(runId: string): void {
    this.entries.delete(runId);
  }

  /** The state the storage loaded for `runId`; a storage that did not load it first is a defect, named as such. */
  stateOf(runId: string): RunKeyState {
    const entry = this.entries.get(runId);
    if (!entry) throw new JournalDataError(`The key of run "${runId}" was not loaded before its data was sealed or opened (a defect in the storage).`);
    return entry.state;
  }

  /**
   * Whether `runId`'s user data is sealed whole with its own key. Its key must have been loaded: a write
   * that did not load it is refused (a defect), never written in clear.
   */
  sealsWhole(runId: string, creates: boolean): boolean {
    // Never loaded: with run keys off the run is sealed as before (a run that has a key is loaded by every write path first).
    if (!creates && !this.entries.has(runId)) return false;
    return this.stateOf(runId).kind === 'live';
  }

  sealWith(runId: string, plaintext: string): { [ENVELOPE_KEY]: string } {
    const state = this.stateOf(runId);
    if (state.kind === 'erased') throw new RunErasedError(runId, state.erasure);
    if (state.kind !== 'live') throw new JournalDataError(`Run "${runId}" has no data key of its own; its data is sealed as before run keys.`);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', state.key, iv);
    cipher.setAAD(Buffer.from(dataContext(runId), 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { [ENVELOPE_KEY]: `${RUN_KEY_VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}` };
  }

  /** The plaintext of a run-key envelope, or undefined when the run's key was erased. */
  openWith(runId: string, envelope: string, where: string): string | undefined {
    const state = this.stateOf(runId);
    if (state.kind === 'erased') return undefined;
    if (state.kind !== 'live') throw new JournalDataError(`${where} is sealed with a run key, and run "${runId}" has none in gnl.run_keys.`);
    const raw = Buffer.from(envelope.slice(RUN_KEY_VERSION.length + 1), 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', state.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(dataContext(runId), 'utf8'));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new JournalDataError(`${where} could not be decrypted with its run's key: it was altered or belongs to another run.`, { cause: error });
    }
  }
}

export function isRunKeyEnvelope(envelope: string): boolean {
  return envelope.startsWith(`${RUN_KEY_VERSION}:`);
}

function wrapContext(runId: string): string {
  return `gnl-run-key:${runId}`;
}

function dataContext(runId: string): string {
  return `gnl-run-data:${runId}`;
}
