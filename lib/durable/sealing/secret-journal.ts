/**
 * Secrets at the journal boundary: the storage seals an event's user data before it is written
 * (a secret becomes an encrypted envelope, secret-box.ts) and opens it when the event is read back, so
 * the database never holds the plaintext while the runtime (a retry, a not-done rerun, an approved
 * call on resume) gets the real value, and 'args' idempotency keys are computed from the plaintext.
 *
 * Only user data is looked at: the prompt of run-start, a model step's result, tool call arguments and
 * outputs, an approval's arguments, a side effect's settled output, a suspend's pending arguments, a
 * replay mismatch's texts. GNL's own fields (ids, keys, operators) stay queryable. A string holding
 * JSON with a secret inside (a model's tool call arguments) is sealed whole.
 *
 * The hot path pays one regular-expression scan of the encoded event (mightHold); only an event that
 * may hold a secret is walked and encoded again.
 *
 * Without a key, secrets are stored in clear and `onClearText` is told once per process (storageFromEnv
 * prints a warning); an envelope met without the key, or with another key, is a JournalDataError that
 * names the run, the event and the field.
 */
import type { JournalEvent, JournalEventType, PendingItem, RunInput } from '../journal/events';
import { JournalDataError } from '../errors';
import { USER_DATA } from '../journal/event-schemas';
import { decodeJson, encodeJson } from '../journal/json-codec';
import { ERASED_TEXT, isRunKeyEnvelope, RunKeyRing } from './run-keys';
import { type JournalKey, open, seal } from './secret-box';
import { ENVELOPE_KEY, isEnvelope, KEY_VALUE_HINT, looksLikeApiKey, SecretFields, type SecretFieldOptions } from '../secrets/secret-fields';

export interface JournalSecretsOptions extends SecretFieldOptions {
  /** The key secrets are encrypted with (journalKeyFrom). Without one they are stored in clear. */
  key?: JournalKey;
  /** Earlier keys, to open what they sealed before a rotation (never used to seal). Default: none. */
  previousKeys?: readonly JournalKey[];
  /**
   * Every new run gets a data key of its own, and its user data is sealed whole with it, so the run can
   * be erased (run-keys.ts, docs/erasure.md). Needs `key` (which wraps the run keys). Default false.
   * Runs sealed with their own key stay readable with it off.
   */
  runKeys?: boolean;
  /** Told once per JournalSecrets when a secret is stored in clear for want of a key (field path, run). Default: a console warning. */
  onClearText?: (where: string) => void;
}

/** The fields of an event type that may be declared as user data. */
type FieldsOf<T extends JournalEventType> = readonly Exclude<keyof Extract<JournalEvent, { type: T }>, 'type'>[];

/**
 * The user-data fields of each event type, the only ones sealed and opened: declared beside each event's
 * schema (event-schemas.ts), where an event type without its declaration does not compile, so its user
 * data cannot be stored unsealed by omission. (run-start's input and run-suspend's pending are walked by
 * their own functions below: the prompt fields of the input, each pending item's arguments.)
 */
export { USER_DATA };

/** A declaration for every event type, each naming only fields its type has. */
export type UserDataDeclaration = { readonly [T in JournalEventType]: FieldsOf<T> };

// A compile-time check (nothing runs): the declaration derived from the schemas covers every event type.
USER_DATA satisfies UserDataDeclaration;

const RUN_INPUT_DATA = ['prompt', 'messages', 'system', 'instructions', 'forkOf'] as const satisfies readonly (keyof RunInput)[];

type Walk = (value: unknown, path: string) => unknown;

/** Text that may hold a Map as the codec writes it (`"$gnl":"map"`, json-codec.ts), also inside a JSON string (`\"map\"`). */
function mayHoldMap(json: string): boolean {
  return json.includes('map"') || json.includes('map\\"');
}

export class JournalSecrets {
  readonly fields: SecretFields;
  private readonly key: JournalKey | undefined;
  private readonly previousKeys: readonly JournalKey[];
  private readonly onClearText: (where: string) => void;
  private warned = false;
  /** The runs' own keys, whenever a journal key is set (to read what was sealed with them); undefined without one. */
  readonly ring: RunKeyRing | undefined;
  /** New runs get a key of their own (runKeys). */
  readonly createsRunKeys: boolean;

  constructor(options: JournalSecretsOptions = {}) {
    this.fields = new SecretFields(options);
    this.key = options.key;
    this.previousKeys = options.previousKeys ?? [];
    if (options.runKeys && !options.key) {
      throw new JournalDataError('Run keys (GNL_RUN_KEYS=on) need a journal key to wrap them: set GNL_JOURNAL_KEY too (docs/erasure.md).');
    }
    this.ring = options.key ? new RunKeyRing(options.key, this.previousKeys) : undefined;
    this.createsRunKeys = options.runKeys === true;
    this.onClearText =
      options.onClearText ??
      ((where) =>
        console.warn(
          `gnl: ${where} looks like a secret and is stored in clear in the journal: set GNL_JOURNAL_KEY (32 random bytes, base64) to encrypt secrets.`,
        ));
  }

  get encrypts(): boolean {
    return this.key !== undefined;
  }

  /**
   * A setting's secret as stored outside the journal's events (a webhook's address or signing key: the
   * Studio's Webhooks screen): sealed with the journal key when one is set, else the text itself (and
   * `encrypts` says so). `context` binds the envelope to its row (it cannot be moved to another).
   */
  sealSetting(text: string, context: string): string | { [ENVELOPE_KEY]: string } {
    return this.key ? seal(this.key, JSON.stringify(text), `gnl-setting:${context}`) : text;
  }

  /** What sealSetting stored, opened (with the journal key, or an earlier one after a rotation). */
  openSetting(stored: unknown, context: string, where: string): string {
    if (typeof stored === 'string') return stored;
    if (isEnvelope(stored)) return JSON.parse(open(this.key, stored[ENVELOPE_KEY], `gnl-setting:${context}`, where, this.previousKeys)) as string;
    throw new JournalDataError(`${where} is neither text nor a sealed value.`);
  }

  /** Cheap pre-check on JSON text: false means it holds no secret field and no credential-looking value. */
  mightHold(json: string): boolean {
    return (
      this.fields.namePattern.test(json) ||
      KEY_VALUE_HINT.test(json) ||
      json.includes(ENVELOPE_KEY) ||
      // A Map's entries (the codec's pairs), looked for only when the text holds a Map: no second name scan on every append.
      (mayHoldMap(json) && this.fields.pairKeyPattern.test(json))
    );
  }

  /** The event as it is stored: secrets in its user data sealed. The same object when there is none. */
  sealEvent<E extends JournalEvent>(event: E, runId: string): E {
    if (this.sealsWhole(runId)) return this.sealEventWhole(event, runId);
    if (event.type === 'run-start') {
      const input = this.sealRunInput(event.input, runId);
      return input === event.input ? event : { ...event, input };
    }
    if (event.type === 'run-suspend') {
      const pending = this.sealPending(event.pending, runId);
      return pending === event.pending ? event : { ...event, pending };
    }
    return this.mapFields(event, USER_DATA[event.type] as readonly string[], (value, path) =>
      this.sealValue(value, runId, `run "${runId}" ${event.type} ${path}`),
    );
  }

  /** Whether `runId`'s user data is sealed whole with the run's own key (its key loaded first: storage/run-key-rows.ts). */
  sealsWhole(runId: string): boolean {
    return this.ring?.sealsWhole(runId, this.createsRunKeys) === true;
  }

  /** Any JSON value, sealed whole with the run's own key. */
  sealWhole(value: unknown, runId: string): { [ENVELOPE_KEY]: string } {
    return (this.ring as RunKeyRing).sealWith(runId, JSON.stringify(encodeJson(value)));
  }

  /**
   * The event with each user-data field sealed whole with the run's key. A model step's result keeps its
   * token usage and finish reason in clear (the Studio sums usage in SQL; neither is about anyone).
   */
  private sealEventWhole<E extends JournalEvent>(event: E, runId: string): E {
    const whole: Walk = (value) => this.sealWhole(value, runId);
    if (event.type === 'run-start') return { ...event, input: this.mapRunInput(event.input, whole) };
    if (event.type === 'run-suspend') return { ...event, pending: this.mapList(event.pending, (item) => this.mapFields(item, ['input'], whole)) };
    if (event.type === 'model-step') {
      const result = event.result as unknown;
      if (result === null || typeof result !== 'object' || Array.isArray(result)) return this.mapFields(event, ['result'], whole);
      const sealed: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(result)) {
        if (value === undefined) continue;
        sealed[name] = KEPT_CLEAR_IN_RESULT.has(name) ? value : this.sealWhole(value, runId);
      }
      return { ...event, result: sealed };
    }
    return this.mapFields(event, USER_DATA[event.type] as readonly string[], whole);
  }

  /** The event as the runtime sees it: envelopes opened. `where` names it in errors. */
  openEvent<E extends JournalEvent>(event: E, runId: string, where: string): E {
    if (event.type === 'run-start') {
      const input = this.openRunInput(event.input, runId, where);
      return input === event.input ? event : { ...event, input };
    }
    if (event.type === 'run-suspend') {
      const pending = this.openPending(event.pending, runId, where);
      return pending === event.pending ? event : { ...event, pending };
    }
    return this.mapFields(event, USER_DATA[event.type] as readonly string[], (value, path) => this.openValue(value, runId, `${where} ${path}`));
  }

  sealRunInput(input: RunInput, runId: string): RunInput {
    if (this.sealsWhole(runId)) return this.mapRunInput(input, (value) => this.sealWhole(value, runId));
    return this.mapRunInput(input, (value, path) => this.sealValue(value, runId, `run "${runId}" input.${path}`));
  }

  openRunInput(input: RunInput, runId: string, where: string): RunInput {
    return this.mapRunInput(input, (value, path) => this.openValue(value, runId, `${where} input.${path}`));
  }

  /**
   * The start input's user data: the prompt fields, a workflow's typed input (`workflow.input`; its
   * name and version stay clear: executors dispatch by them, and an erased run is still listed by them),
   * and the memory messages read for the run (`memory.messages`).
   */
  private mapRunInput(input: RunInput, walk: Walk): RunInput {
    let mapped = this.mapFields(input, RUN_INPUT_DATA, walk);
    const { workflow, memory } = mapped;
    if (workflow) {
      const inner = this.mapFields(workflow, ['input'], (value) => walk(value, 'workflow.input'));
      if (inner !== workflow) mapped = { ...mapped, workflow: inner };
    }
    // The memory read for the run (a customer's earlier messages): sealed like its prompt; resource and thread stay clear.
    if (memory) {
      const inner = this.mapFields(memory, ['messages'], (value) => walk(value, 'memory.messages'));
      if (inner !== memory) mapped = { ...mapped, memory: inner };
    }
    return mapped;
  }

  sealPending(pending: PendingItem[], runId: string): PendingItem[] {
    if (this.sealsWhole(runId)) return this.mapList(pending, (item) => this.mapPendingData(item, (value) => this.sealWhole(value, runId)));
    return this.mapList(pending, (item, i) => this.mapPendingData(item, (value, path) => this.sealValue(value, runId, `run "${runId}" pending[${i}].${path}`)));
  }

  openPending(pending: PendingItem[], runId: string, where: string): PendingItem[] {
    return this.mapList(pending, (item, i) => this.mapPendingData(item, (value, path) => this.openValue(value, runId, `${where} pending[${i}].${path}`)));
  }

  /** A pending item's user data sealed (or opened) as an event's: its input, and an approval's proposed arguments (`proposal.input`). */
  sealPendingProposal(item: PendingItem, runId: string): PendingItem {
    if (item.kind !== 'approval' || !item.proposal) return item;
    const seal: Walk = this.sealsWhole(runId)
      ? (value) => this.sealWhole(value, runId)
      : (value, path) => this.sealValue(value, runId, `run "${runId}" ${path}`);
    return { ...item, proposal: this.mapFields(item.proposal, ['input'], (value) => seal(value, 'proposal.input')) };
  }

  private mapPendingData(item: PendingItem, walk: Walk): PendingItem {
    const mapped = this.mapFields(item, ['input'], walk);
    if (mapped.kind !== 'approval' || !mapped.proposal) return mapped;
    const proposal = this.mapFields(mapped.proposal, ['input'], (value) => walk(value, 'proposal.input'));
    return proposal === mapped.proposal ? mapped : { ...mapped, proposal };
  }

  private mapList<T>(list: T[], map: (item: T, index: number) => T): T[] {
    let out: T[] | undefined;
    list.forEach((item, i) => {
      const next = map(item, i);
      if (next !== item) {
        out ??= [...list];
        out[i] = next;
      }
    });
    return out ?? list;
  }

  private mapFields<T extends object>(object: T, names: readonly string[] | undefined, walk: Walk): T {
    if (!names) return object;
    let out: Record<string, unknown> | undefined;
    for (const name of names) {
      const value = (object as Record<string, unknown>)[name];
      if (value === undefined) continue;
      const next = walk(value, name);
      if (next !== value) {
        out ??= { ...(object as Record<string, unknown>) };
        out[name] = next;
      }
    }
    return (out ?? object) as T;
  }

  /** `value` with its secrets sealed; the same reference when nothing changed. */
  private sealValue(value: unknown, runId: string, where: string): unknown {
    const walk = (node: unknown, path: string): unknown => {
      if (typeof node === 'string') return this.isSecretString(node) ? this.sealSecret(node, runId, path) : node;
      if (node === null || typeof node !== 'object' || node instanceof Date || node instanceof Uint8Array) return node;
      if (isEnvelope(node)) {
        // User data shaped like GNL's envelope: kept apart from a real one by sealing it (it opens back to itself).
        if (!this.key)
          throw new JournalDataError(
            `${path} is shaped like GNL's encrypted envelope ({"${ENVELOPE_KEY}": …}); it can be journaled only with GNL_JOURNAL_KEY set.`,
          );
        return this.sealSecret(node, runId, path);
      }
      if (Array.isArray(node)) return this.mapList(node, (item, i) => walk(item, `${path}[${i}]`));
      // A Map is a record too (a secret-named key seals its value; keys are walked like values), a Set a list:
      // the codec keeps both, so their contents are user data like an object's members.
      if (node instanceof Map) {
        return mapEntries(node, (key, item, i) =>
          typeof key === 'string' && this.fields.isSecretField(key) && item !== null && item !== undefined
            ? [key, this.sealSecret(item, runId, `${path}.get(${JSON.stringify(key)})`)]
            : [walk(key, `${path} key ${i}`), walk(item, `${path} value ${i}`)],
        );
      }
      if (node instanceof Set) return mapItems(node, (item, i) => walk(item, `${path} item ${i}`));
      // The journal keeps an object with toJSON as what toJSON gives (json-codec.ts): that is what is walked.
      if (typeof (node as { toJSON?: unknown }).toJSON === 'function') {
        const json = (node as { toJSON(): unknown }).toJSON();
        const sealed = walk(json, path);
        return sealed === json ? node : sealed;
      }
      let out: Record<string, unknown> | undefined;
      for (const [name, item] of Object.entries(node)) {
        if (item === undefined) continue;
        const next = this.fields.isSecretField(name) && item !== null ? this.sealSecret(item, runId, `${path}.${name}`) : walk(item, `${path}.${name}`);
        if (next !== item) {
          out ??= { ...node };
          out[name] = next;
        }
      }
      return out ?? node;
    };
    return walk(value, where);
  }

  private isSecretString(text: string): boolean {
    if (looksLikeApiKey(text)) return true;
    const first = text.trimStart()[0];
    if ((first !== '{' && first !== '[') || !this.mightHold(text)) return false;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
    return this.holdsSecret(parsed);
  }

  private holdsSecret(node: unknown): boolean {
    if (typeof node === 'string') return this.isSecretString(node);
    if (node === null || typeof node !== 'object') return false;
    if (Array.isArray(node)) return node.some((item) => this.holdsSecret(item));
    return Object.entries(node).some(([name, item]) => (this.fields.isSecretField(name) && item !== null) || this.holdsSecret(item));
  }

  private sealSecret(value: unknown, runId: string, where: string): unknown {
    if (!this.key) {
      if (!this.warned) {
        this.warned = true;
        this.onClearText(where);
      }
      return value;
    }
    return seal(this.key, JSON.stringify(encodeJson(value)), context(runId));
  }

  /** `value` with its envelopes opened; the same reference when it holds none. */
  private openValue(value: unknown, runId: string, where: string): unknown {
    // Most values hold no envelope: looked for first, without building a path per node.
    if (!containsEnvelope(value)) return value;
    const walk = (node: unknown, path: string): unknown => {
      if (node === null || typeof node !== 'object' || node instanceof Date || node instanceof Uint8Array) return node;
      if (isEnvelope(node)) return this.openEnvelope(node[ENVELOPE_KEY], runId, path);
      if (Array.isArray(node)) return this.mapList(node, (item, i) => walk(item, `${path}[${i}]`));
      if (node instanceof Map) return mapEntries(node, (key, item, i) => [walk(key, `${path} key ${i}`), walk(item, `${path} value ${i}`)]);
      if (node instanceof Set) return mapItems(node, (item, i) => walk(item, `${path} item ${i}`));
      let out: Record<string, unknown> | undefined;
      for (const [name, item] of Object.entries(node)) {
        const next = walk(item, `${path}.${name}`);
        if (next !== item) {
          out ??= { ...node };
          out[name] = next;
        }
      }
      return out ?? node;
    };
    return walk(value, where);
  }

  /** One envelope opened: a run-key envelope with the run's key (ERASED_TEXT once erased), else with the journal key. */
  openEnvelope(envelope: string, runId: string, where: string): unknown {
    if (isRunKeyEnvelope(envelope)) {
      if (!this.ring) {
        throw new JournalDataError(
          `${where} is sealed with its run's own key, and no journal key is configured to unwrap it: set GNL_JOURNAL_KEY to the key it was written with.`,
        );
      }
      const text = this.ring.openWith(runId, envelope, where);
      return text === undefined ? ERASED_TEXT : decodeJson(JSON.parse(text));
    }
    return decodeJson(JSON.parse(open(this.key, envelope, context(runId), where, this.previousKeys)));
  }
}

/** A model step's result fields left in clear when the rest is sealed with the run's key. */
const KEPT_CLEAR_IN_RESULT = new Set(['usage', 'finishReason']);

function context(runId: string): string {
  return `gnl-run:${runId}`;
}

/**
 * Whether an envelope is anywhere in `value` (a plain walk: no copies, no paths, and no key list per
 * object: `for…in` with an own-key check, where Object.keys made an array per object, a quarter of a
 * completed run's answer's garbage).
 */
function containsEnvelope(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || value instanceof Date || value instanceof Uint8Array) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (containsEnvelope(value[i])) return true;
    return false;
  }
  if (value instanceof Map) {
    for (const [key, item] of value) if (containsEnvelope(key) || containsEnvelope(item)) return true;
    return false;
  }
  if (value instanceof Set) {
    for (const item of value) if (containsEnvelope(item)) return true;
    return false;
  }
  if (isEnvelope(value)) return true;
  for (const key in value) if (Object.hasOwn(value, key) && containsEnvelope((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** The Map with each entry replaced by `map`'s; the same Map when no key or value changed (insertion order kept). */
function mapEntries(map: Map<unknown, unknown>, replace: (key: unknown, item: unknown, i: number) => [unknown, unknown]): Map<unknown, unknown> {
  const entries: [unknown, unknown][] = [];
  let changed = false;
  let i = 0;
  for (const [key, item] of map) {
    const next = replace(key, item, i++);
    if (next[0] !== key || next[1] !== item) changed = true;
    entries.push(next);
  }
  return changed ? new Map(entries) : map;
}

/** The Set with each item replaced by `map`'s; the same Set when none changed (insertion order kept). */
function mapItems(set: Set<unknown>, replace: (item: unknown, i: number) => unknown): Set<unknown> {
  const items: unknown[] = [];
  let changed = false;
  let i = 0;
  for (const item of set) {
    const next = replace(item, i++);
    if (next !== item) changed = true;
    items.push(next);
  }
  return changed ? new Set(items) : set;
}
