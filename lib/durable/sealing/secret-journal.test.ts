import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { JournalDataError } from '../errors';
import type { JournalEvent } from '../journal/events';
import { journalKeyFrom } from './secret-box';
import { JournalSecrets, USER_DATA, type UserDataDeclaration } from './secret-journal';

const key = journalKeyFrom(randomBytes(32).toString('base64'));
const otherKey = journalKeyFrom(randomBytes(32).toString('hex'));
const secrets = new JournalSecrets({ key });
const API_KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';

const start: JournalEvent = {
  type: 'tool-call-start',
  toolCallId: 'call-1',
  toolName: 'charge',
  input: { apiKey: API_KEY, amount: 40, when: new Date('2026-01-01T00:00:00Z'), card: { cardNumber: 4242424242424242 } },
  idempotencyKey: 'gnl1a_x',
  attempt: 1,
  sideEffect: true,
};

describe('JournalSecrets', () => {
  it('seals secret fields of user data and opens them back to the same values', () => {
    const sealed = secrets.sealEvent(start, 'run-1');
    const text = JSON.stringify(sealed);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('4242424242424242');
    expect(text).toContain('"$gnl:enc":"v1:');
    expect(sealed).toMatchObject({ toolCallId: 'call-1', idempotencyKey: 'gnl1a_x', input: { amount: 40 } });
    expect(secrets.openEvent(sealed, 'run-1', 'event')).toEqual(start);
  });

  it('leaves an event without secrets as the same object, and the pre-check says so from the JSON', () => {
    const plain: JournalEvent = { ...start, input: { orderId: 'o_17', amount: 40 } };
    expect(secrets.sealEvent(plain, 'run-1')).toBe(plain);
    expect(secrets.mightHold(JSON.stringify(plain))).toBe(false);
    expect(secrets.mightHold(JSON.stringify(start))).toBe(true);
  });

  it('seals secrets inside Maps and Sets and what an object gives as toJSON, as the journal keeps them, and opens them back', () => {
    class Session {
      readonly #password = 'pw-private-field-1a2b';
      toJSON() {
        return { user: 'ada', password: this.#password };
      }
    }
    const output = {
      byName: new Map<unknown, unknown>([
        ['password', 'pw-map-key-9f8e'],
        ['account', { apiKey: API_KEY }],
      ]),
      tokens: new Set([API_KEY, 'plain']),
      session: new Session(),
    };
    const end = {
      type: 'tool-call-end',
      toolCallId: 'call-1',
      toolName: 't',
      idempotencyKey: 'k',
      attempt: 1,
      output,
      durationMs: 0,
      source: 'executed',
    } satisfies JournalEvent;
    const sealed = secrets.sealEvent(end, 'run-1');
    const text = JSON.stringify(sealed, (_key, value) => (value instanceof Map || value instanceof Set ? [...value] : value));
    for (const secret of [API_KEY, 'pw-map-key-9f8e', 'pw-private-field-1a2b']) expect(text).not.toContain(secret);
    const opened = secrets.openEvent(sealed, 'run-1', 'event');
    expect(opened.output).toEqual({ ...output, session: { user: 'ada', password: 'pw-private-field-1a2b' } });
    // The pre-check on the stored JSON sees a Map entry's key (the codec stores a Map as [key, value] pairs).
    expect(secrets.mightHold('{"output":{"$gnl":"map","v":[["password","x"]]}}')).toBe(true);
    expect(secrets.mightHold('{"output":{"$gnl":"map","v":[["user","x"]]}}')).toBe(false);
  });

  it("seals a model step's tool call arguments (a JSON string) whole, and restores the exact string", () => {
    const input = JSON.stringify({ apiKey: API_KEY, amount: 40 });
    const step: JournalEvent = {
      type: 'model-step',
      step: 0,
      provider: 'p',
      modelId: 'm',
      latencyMs: 1,
      result: { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'charge', input }], usage: { inputTokens: { total: 3 } } },
    };
    const sealed = secrets.sealEvent(step, 'run-1');
    expect(JSON.stringify(sealed)).not.toContain(API_KEY);
    expect(secrets.openEvent(sealed, 'run-1', 'event')).toEqual(step);
  });

  it('seals pending arguments and a run input prompt', () => {
    const pending = [{ kind: 'approval' as const, toolCallId: 'c', toolName: 't', input: { password: 'hunter2hunter2' }, requestedAt: 'now' }];
    const sealedPending = secrets.sealPending(pending, 'run-1');
    expect(JSON.stringify(sealedPending)).not.toContain('hunter2');
    expect(secrets.openPending(sealedPending, 'run-1', 'run')).toEqual(pending);
    const input = { prompt: `use ${API_KEY}`, messages: [{ role: 'user', content: API_KEY }], modelId: 'm', provider: 'p', toolNames: ['getToken'] };
    const sealedInput = secrets.sealRunInput(input, 'run-1');
    expect(JSON.stringify(sealedInput)).not.toContain(`"${API_KEY}"`);
    expect(sealedInput.toolNames).toEqual(['getToken']);
    expect(secrets.openRunInput(sealedInput, 'run-1', 'run')).toEqual(input);
  });

  it("seals an approval's proposed arguments in the pending list, with the list or alone (a decision's new proposal), and opens them", () => {
    const proposal = { input: { password: 'proposed-secret-1' }, inputHash: 'h', by: 'bob', at: 'now' };
    const item = { kind: 'approval' as const, toolCallId: 'c', toolName: 't', input: { amount: 4 }, requestedAt: 'now', proposal };
    const sealedList = secrets.sealPending([item], 'run-1');
    expect(JSON.stringify(sealedList)).not.toContain('proposed-secret-1');
    expect(secrets.openPending(sealedList, 'run-1', 'run')).toEqual([item]);
    const sealedItem = secrets.sealPendingProposal(item, 'run-1');
    expect(JSON.stringify(sealedItem)).not.toContain('proposed-secret-1');
    expect(sealedItem).toMatchObject({ input: { amount: 4 }, proposal: { inputHash: 'h', by: 'bob' } });
    expect(secrets.openPending([sealedItem], 'run-1', 'run')).toEqual([item]);
  });

  it('refuses to open without the key, with another key, or in another run, naming the field', () => {
    const sealed = secrets.sealEvent(start, 'run-1');
    const open =
      (s: JournalSecrets, runId = 'run-1') =>
      () =>
        s.openEvent(sealed, runId, 'run "run-1" event #3 (tool-call-start)');
    expect(open(new JournalSecrets())).toThrow(JournalDataError);
    expect(open(new JournalSecrets())).toThrow(/event #3 \(tool-call-start\) input\.apiKey is encrypted .*no journal key is configured/);
    expect(open(new JournalSecrets({ key: otherKey }))).toThrow(
      new RegExp(`input\\.apiKey is encrypted with journal key ${key.id}, but GNL_JOURNAL_KEY is key ${otherKey.id}: set the key it was written with`),
    );
    expect(open(secrets, 'run-2')).toThrow(/input\.apiKey could not be decrypted .*another run/);
  });

  it('after a rotation: new secrets are sealed with the new key, old envelopes open with the previous keys, by their key id', () => {
    const sealedBefore = secrets.sealEvent(start, 'run-1');
    const thirdKey = journalKeyFrom(randomBytes(32).toString('base64'));
    const rotated = new JournalSecrets({ key: otherKey, previousKeys: [thirdKey, key] });
    expect(rotated.openEvent(sealedBefore, 'run-1', 'event')).toEqual(start);
    const sealedAfter = rotated.sealEvent(start, 'run-1');
    expect(JSON.stringify(sealedAfter)).toContain(`"v1:${otherKey.id}:`);
    expect(rotated.openEvent(sealedAfter, 'run-1', 'event')).toEqual(start);
    // The old key alone cannot read what the new one sealed; previous keys never seal.
    expect(() => secrets.openEvent(sealedAfter, 'run-1', 'event')).toThrow(
      new RegExp(`encrypted with journal key ${otherKey.id}, but GNL_JOURNAL_KEY is key ${key.id}`),
    );
    // Only previous keys (the current one unset): still readable, and the error names what is configured.
    expect(new JournalSecrets({ previousKeys: [key] }).openEvent(sealedBefore, 'run-1', 'event')).toEqual(start);
    expect(() => new JournalSecrets({ key: thirdKey, previousKeys: [otherKey] }).openEvent(sealedBefore, 'run-1', 'event')).toThrow(
      new RegExp(`key ${key.id}, but GNL_JOURNAL_KEY is key ${thirdKey.id} and GNL_JOURNAL_KEY_PREVIOUS holds ${otherKey.id}`),
    );
  });

  it('without a key stores secrets in clear and says so once', () => {
    const told: string[] = [];
    const clear = new JournalSecrets({ onClearText: (where) => told.push(where) });
    expect(clear.sealEvent(start, 'run-1')).toBe(start);
    clear.sealEvent(start, 'run-1');
    expect(told).toEqual(['run "run-1" tool-call-start input.apiKey']);
  });

  it('rejects a malformed key with how to make one', () => {
    expect(() => journalKeyFrom('too-short')).toThrow(/GNL_JOURNAL_KEY must be 32 random bytes .*randomBytes\(32\)/);
    expect(journalKeyFrom(key.bytes.toString('hex')).id).toBe(key.id);
  });

  it('every event type declares its user data; the compiler refuses a type left out or a field it does not have', () => {
    const { 'run-complete': _left, ...withoutOne } = USER_DATA;
    // @ts-expect-error: run-complete is missing, so its text would be stored unsealed
    const missing: UserDataDeclaration = withoutOne;
    // @ts-expect-error: tool-call-start has no field "output"
    const wrongField: UserDataDeclaration = { ...USER_DATA, 'tool-call-start': ['output'] };
    expect(Object.keys(missing)).not.toContain('run-complete');
    expect(wrongField['tool-call-start']).toEqual(['output']);
    // Each declared field of each type is sealed: a secret placed in it leaves no plaintext.
    for (const [type, fields] of Object.entries(USER_DATA)) {
      if (type === 'run-start' || type === 'run-suspend') continue; // their own walks: tested above
      for (const field of fields) {
        const event = { type, [field]: { apiKey: API_KEY } } as unknown as JournalEvent;
        expect(JSON.stringify(secrets.sealEvent(event, 'run-1')), `${type}.${field}`).not.toContain(API_KEY);
      }
    }
  });
});
