/**
 * Studio sessions on real journals (embedded PGlite and Postgres): a session is a row, read with its
 * operator in one statement; signing out ends that one, signing out everywhere and disabling end all of
 * the operator's, each audited with who and when.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import type { Storage } from '@/lib/durable/storage';
import { describeEachJournal } from '@/tests/support/journals';
import {
  addOperator,
  disableOperator,
  endOperatorSession,
  type Operator,
  operatorAuditTrail,
  sessionOperator,
  signOutEverywhere,
  startOperatorSession,
  UnknownOperatorError,
} from './index';

const PASSWORD = 'correct horse battery';
const inAnHour = () => new Date(Date.now() + 3_600_000);

describeEachJournal('operator sessions', (target) => {
  let storage: Storage;
  beforeAll(() => {
    storage = target.open().storage;
  });
  const operator = (name: string) => addOperator({ storage, login: `${name}-${randomUUID().slice(0, 8)}`, name, password: PASSWORD, by: 'root@example.com' });
  const session = async (op: Operator) => ({ ...(await startOperatorSession({ operatorId: op.id, expiresAt: inAnHour(), storage })), operatorId: op.id });

  it('a session is on until it is signed out; signing out one browser leaves the operator’s other sessions on, and is audited', async () => {
    const ada = await operator('ada');
    const laptop = await session(ada);
    const phone = await session(ada);
    expect(await sessionOperator(laptop, { storage })).toEqual(ada);

    expect(await endOperatorSession({ sessionId: laptop.sessionId, operator: ada, storage })).toBe(true);
    expect(await sessionOperator(laptop, { storage })).toBeUndefined();
    expect(await sessionOperator(phone, { storage })).toEqual(ada);
    // Once is enough: a second sign-out of the same session writes nothing.
    expect(await endOperatorSession({ sessionId: laptop.sessionId, operator: ada, storage })).toBe(false);

    const trail = await operatorAuditTrail({ storage, login: ada.login });
    expect(trail.map((e) => [e.action, e.by, e.detail])).toEqual([
      ['signed-out', ada.login, { session: laptop.sessionId.slice(0, 8) }],
      // Without a role, the journal's first account is an admin, later ones approvers (authorize.ts).
      ['added', 'root@example.com', { name: 'ada', role: ada.role }],
    ]);
    expect(await rowsOf(storage, laptop.sessionId)).toMatchObject({ revoked_by: ada.login, revoke_reason: 'signed-out', revoked: true });
  });

  it('signing out everywhere ends every session of that operator and no one else’s, audited with who and how many', async () => {
    const bob = await operator('bob');
    const carol = await operator('carol');
    const bobs = [await session(bob), await session(bob), await session(bob)];
    const carols = await session(carol);
    await endOperatorSession({ sessionId: (bobs[0] as { sessionId: string }).sessionId, operator: bob, storage });

    const ended = await signOutEverywhere(bob.login.toUpperCase(), { by: 'root@example.com', storage });
    expect(ended).toEqual({ operator: bob, sessions: 2 });
    for (const s of bobs) expect(await sessionOperator(s, { storage })).toBeUndefined();
    expect(await sessionOperator(carols, { storage })).toEqual(carol);
    // A new sign-in afterwards is on: the account is not disabled.
    expect(await sessionOperator(await session(bob), { storage })).toEqual(bob);

    const [latest] = await operatorAuditTrail({ storage, login: bob.login });
    expect(latest).toMatchObject({ action: 'signed-out-everywhere', by: 'root@example.com', detail: { sessions: 2 } });
    const unknown = await signOutEverywhere(`nobody-${randomUUID().slice(0, 8)}`, { by: 'root', storage }).catch((error: unknown) => error);
    expect(UnknownOperatorError.isInstance(unknown)).toBe(true);
    await expect(signOutEverywhere(bob.login, { by: '  ', storage })).rejects.toThrow(/by: say who makes the change/);
  });

  it('disabling an account ends all of its sessions in the same change (the audit row counts them)', async () => {
    const dave = await operator('dave');
    const sessions = [await session(dave), await session(dave)];
    await disableOperator(dave.login, { by: 'root@example.com', reason: 'left', storage });
    for (const s of sessions) expect(await sessionOperator(s, { storage })).toBeUndefined();
    const [latest] = await operatorAuditTrail({ storage, login: dave.login });
    expect(latest).toMatchObject({ action: 'disabled', detail: { reason: 'left', sessions: 2 } });
  });

  it('a session is refused under another operator’s id, and ids that name nothing are refused, not errors', async () => {
    const erin = await operator('erin');
    const frank = await operator('frank');
    const erins = await session(erin);
    expect(await sessionOperator({ sessionId: erins.sessionId, operatorId: frank.id }, { storage })).toBeUndefined();
    expect(await sessionOperator({ sessionId: randomUUID(), operatorId: erin.id }, { storage })).toBeUndefined();
    expect(await sessionOperator({ sessionId: '', operatorId: erin.id }, { storage })).toBeUndefined();
    expect(await sessionOperator({ sessionId: 'x'.repeat(5000), operatorId: erin.id }, { storage })).toBeUndefined();
  });

  it('a session expired more than a week ago is pruned by the next sign-in; younger ones are kept', async () => {
    const gina = await operator('gina');
    const old = await startOperatorSession({ operatorId: gina.id, expiresAt: new Date(Date.now() - 8 * 24 * 3_600_000), storage });
    const recent = await startOperatorSession({ operatorId: gina.id, expiresAt: new Date(Date.now() - 3_600_000), storage });
    await session(gina);
    expect(await rowsOf(storage, old.sessionId)).toBeUndefined();
    expect(await rowsOf(storage, recent.sessionId)).toBeDefined();
  });
});

async function rowsOf(storage: Storage, sessionId: string): Promise<Record<string, unknown> | undefined> {
  const result = (await (
    await storage.database()
  ).execute(sql`select revoked_by, revoke_reason, revoked_at is not null as revoked from gnl.operator_sessions where id = ${sessionId}`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
  return rows[0];
}
