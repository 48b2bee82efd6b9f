/**
 * Operator accounts on real journals (embedded PGlite and Postgres): what is stored, who may sign in,
 * and the audit of every change.
 */
import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import type { Storage } from '@/lib/durable/storage';
import { describeEachJournal } from '@/tests/support/journals';
import {
  addOperator,
  countOperators,
  disableOperator,
  findOperator,
  getOperator,
  listOperators,
  OperatorDisabledError,
  OperatorExistsError,
  OperatorInputError,
  operatorAuditTrail,
  UnknownOperatorError,
  verifyOperator,
} from './index';

const PASSWORD = 'correct horse battery';

async function rows<T>(storage: Storage, statement: SQL): Promise<T[]> {
  const result = (await (await storage.database()).execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

describeEachJournal('operator accounts', (target) => {
  let storage: Storage;
  beforeAll(() => {
    storage = target.open().storage;
  });
  const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

  it('stores a salted scrypt hash, never the password, and audits the addition with who and when', async () => {
    const login = unique('ada');
    const other = unique('grace');
    const ada = await addOperator({ storage, login, name: 'Ada Lovelace', password: PASSWORD, by: 'root@example.com' });
    await addOperator({ storage, login: other, name: 'Grace Hopper', password: PASSWORD, by: 'root@example.com' });
    expect(ada).toMatchObject({ login, name: 'Ada Lovelace', createdBy: 'root@example.com' });
    expect(ada).not.toHaveProperty('passwordHash');
    expect(ada.disabled).toBeUndefined();

    const hashes = await rows<{ login: string; password_hash: string }>(
      storage,
      sql`select login, password_hash from gnl.operators where login in (${login}, ${other}) order by login`,
    );
    expect(hashes).toHaveLength(2);
    for (const { password_hash } of hashes) {
      expect(password_hash).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(password_hash).not.toContain(PASSWORD);
    }
    // Same password, different salts: equal passwords are not visible as equal hashes.
    expect(hashes[0]?.password_hash).not.toBe(hashes[1]?.password_hash);

    const [added] = await operatorAuditTrail({ storage, login });
    expect(added).toMatchObject({ operatorId: ada.id, login, action: 'added', by: 'root@example.com', detail: { name: 'Ada Lovelace' } });
    expect(added?.at.getTime()).toBe(ada.createdAt.getTime());
    expect(JSON.stringify(await operatorAuditTrail({ storage }))).not.toContain(PASSWORD);
  });

  it('logins are case-insensitive and unique: a second account with the same login is refused, naming who added the first', async () => {
    const login = unique('ops');
    const first = await addOperator({ storage, login: `  ${login.toUpperCase()}@Example.COM `, name: 'Ops', password: PASSWORD, by: 'alice' });
    expect(first.login).toBe(`${login}@example.com`);
    const error = await refusal(addOperator({ storage, login: `${login}@example.com`, name: 'Ops again', password: PASSWORD, by: 'bob' }));
    expect(OperatorExistsError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`"${login}@example.com" exists already (added by alice at ${first.createdAt.toISOString()})`);
    expect(await operatorAuditTrail({ storage, login: `${login}@example.com` })).toHaveLength(1);
  });

  it('two additions of one login at once make one account', async () => {
    const login = unique('race');
    const results = await Promise.allSettled(['a', 'b', 'c'].map((by) => addOperator({ storage, login, name: `by ${by}`, password: PASSWORD, by })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused.map((r) => OperatorExistsError.isInstance(r.reason))).toEqual([true, true]);
    expect(await operatorAuditTrail({ storage, login })).toHaveLength(1);
  });

  it('refuses bad input, listing every problem and never echoing the password', async () => {
    const short = 'elevenchars';
    const error = await refusal(addOperator({ storage, login: 'Bad Login!', name: '  ', password: short, by: 'alice' }));
    expect(OperatorInputError.isInstance(error)).toBe(true);
    expect((error as OperatorInputError).problems).toEqual([
      'login: letters, digits and . _ + @ - only, starting and ending with a letter or digit',
      'name: say how the operator is shown (a display name)',
      'password: at least 12 characters',
    ]);
    expect(error.message).not.toContain(short);
    // Twelve characters counted as characters: four emoji are eight UTF-16 units but four characters.
    expect((await refusal(addOperator({ storage, login: unique('emoji'), name: 'E', password: '🔑🔑🔑🔑abcdefg', by: 'alice' }))).message).toContain(
      'password: at least 12 characters',
    );
    const ok = await addOperator({ storage, login: unique('emoji'), name: 'E', password: '🔑🔑🔑🔑abcdefgh', by: 'alice' });
    expect((await verifyOperator(ok.login, '🔑🔑🔑🔑abcdefgh', { storage })).ok).toBe(true);
    expect((await refusal(disableOperator(ok.login, { storage, by: ' ' }))).message).toContain('by: say who makes the change');
  });

  it('verifies a sign-in: the right password gives the account; a wrong password, an unknown or malformed login give one answer', async () => {
    const login = unique('sign-in');
    const added = await addOperator({ storage, login, name: 'Signer', password: PASSWORD, by: 'alice' });
    expect(await verifyOperator(login.toUpperCase(), PASSWORD, { storage })).toEqual({ ok: true, operator: added });
    const invalid = { ok: false, reason: 'invalid-credentials', message: 'Wrong login or password.' };
    expect(await verifyOperator(login, `${PASSWORD}!`, { storage })).toEqual(invalid);
    expect(await verifyOperator(login, PASSWORD.slice(0, -1), { storage })).toEqual(invalid);
    expect(await verifyOperator(unique('nobody'), PASSWORD, { storage })).toEqual(invalid);
    expect(await verifyOperator('not a login!', PASSWORD, { storage })).toEqual(invalid);
    expect(await verifyOperator(login, undefined as unknown as string, { storage })).toEqual(invalid);
  });

  it('disables an account once, audited with who, when and why: it can no longer sign in; a second disable names the first', async () => {
    const login = unique('leaver');
    const added = await addOperator({ storage, login, name: 'Leaver', password: PASSWORD, by: 'alice' });
    const disabled = await disableOperator(login.toUpperCase(), { storage, by: 'bob', reason: 'left the team' });
    expect(disabled).toMatchObject({ id: added.id, disabled: { by: 'bob', reason: 'left the team' } });
    expect(disabled.disabled?.at.getTime()).toBeGreaterThanOrEqual(added.createdAt.getTime());

    expect(await verifyOperator(login, PASSWORD, { storage })).toEqual({ ok: false, reason: 'disabled', message: 'This operator account is disabled.' });
    // Only someone who knows the password learns that the account exists and is disabled.
    expect(await verifyOperator(login, 'not the password', { storage })).toMatchObject({ ok: false, reason: 'invalid-credentials' });
    expect(await getOperator(added.id, { storage })).toEqual(disabled);

    const again = await refusal(disableOperator(login, { storage, by: 'carol' }));
    expect(OperatorDisabledError.isInstance(again)).toBe(true);
    expect(again.message).toBe(`Operator "${login}" was already disabled by bob at ${disabled.disabled?.at.toISOString()}.`);

    const trail = await operatorAuditTrail({ storage, login });
    expect(trail.map((e) => [e.action, e.by, e.detail])).toEqual([
      ['disabled', 'bob', { reason: 'left the team', sessions: 0 }],
      ['added', 'alice', { name: 'Leaver', role: 'approver' }],
    ]);
    expect(trail[0]?.at.getTime()).toBe(disabled.disabled?.at.getTime());

    const unknown = await refusal(disableOperator(unique('nobody'), { storage, by: 'bob' }));
    expect(UnknownOperatorError.isInstance(unknown)).toBe(true);
  });

  it('lists, finds and counts accounts, disabled ones on request', async () => {
    const active = await addOperator({ storage, login: unique('active'), name: 'Active', password: PASSWORD, by: 'alice' });
    const gone = await addOperator({ storage, login: unique('gone'), name: 'Gone', password: PASSWORD, by: 'alice' });
    await disableOperator(gone.login, { storage, by: 'alice' });
    const all = await listOperators({ storage });
    expect(all.map((o) => o.login)).toEqual([...all.map((o) => o.login)].sort());
    expect(all.find((o) => o.id === gone.id)?.disabled?.by).toBe('alice');
    const enabled = await listOperators({ storage, includeDisabled: false });
    expect(enabled.some((o) => o.id === active.id)).toBe(true);
    expect(enabled.some((o) => o.id === gone.id)).toBe(false);
    expect(await countOperators({ storage })).toBe(all.length);
    expect(await countOperators({ storage, enabledOnly: true })).toBe(enabled.length);
    expect(await findOperator(active.login.toUpperCase(), { storage })).toEqual(active);
    expect(await findOperator('not a login!', { storage })).toBeUndefined();
    expect(await getOperator(randomUUID(), { storage })).toBeUndefined();
  });

  it('the audit is append-only: the database refuses to update or delete it', async () => {
    const op = await addOperator({ storage, login: unique('audited'), name: 'Audited', password: PASSWORD, by: 'alice' });
    // drizzle wraps the driver's error ("Failed query: …"); the trigger's message is its cause.
    const why = (error: Error) => `${error.message} ${(error.cause as Error | undefined)?.message}`;
    expect(why(await refusal(rows(storage, sql`update gnl.operator_audit set by = 'mallory' where operator_id = ${op.id}`)))).toContain(
      'gnl.operator_audit is append-only: UPDATE is not allowed',
    );
    expect(why(await refusal(rows(storage, sql`delete from gnl.operator_audit where operator_id = ${op.id}`)))).toContain(
      'gnl.operator_audit is append-only: DELETE is not allowed',
    );
    expect((await operatorAuditTrail({ storage, login: op.login }))[0]?.by).toBe('alice');
  });
});
