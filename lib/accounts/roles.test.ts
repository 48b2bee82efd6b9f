/**
 * People's roles and what each may do (authorize.ts), on real journals in a database of their own (the
 * first account of a journal is its admin): roles given, changed with an audit, the last admin kept;
 * and the one authorization module's answers for every role and every token scope.
 */
import { describe, expect, it } from 'vitest';
import { describeEachStorage } from '@/tests/support/executor-storages';
import {
  addOperator,
  authorize,
  OperatorInputError,
  operatorAuditTrail,
  PERMISSIONS,
  type Permission,
  type Principal,
  setOperatorRole,
  UnknownOperatorError,
} from './index';

const PASSWORD = 'correct horse battery';

describeEachStorage('operator roles', (holder) => {
  it('the first account administers, later ones approve unless given a role; a role change is audited and the last admin is kept', async () => {
    const storage = holder.storage;
    const root = await addOperator({ storage, login: 'root', name: 'Root', password: PASSWORD, by: 'os:test' });
    const ada = await addOperator({ storage, login: 'ada', name: 'Ada', password: PASSWORD, by: 'root' });
    const vic = await addOperator({ storage, login: 'vic', name: 'Vic', password: PASSWORD, by: 'root', role: 'viewer' });
    expect([root.role, ada.role, vic.role]).toEqual(['admin', 'approver', 'viewer']);

    await expect(setOperatorRole({ storage, login: 'root', role: 'approver', by: 'root' })).rejects.toThrow('root is the last admin');
    expect((await setOperatorRole({ storage, login: 'ada', role: 'admin', by: 'root', reason: 'on call' })).role).toBe('admin');
    expect((await setOperatorRole({ storage, login: 'root', role: 'viewer', by: 'ada' })).role).toBe('viewer');
    await expect(setOperatorRole({ storage, login: 'ada', role: 'viewer', by: 'ada' })).rejects.toThrow(OperatorInputError);
    await expect(setOperatorRole({ storage, login: 'nobody', role: 'viewer', by: 'ada' })).rejects.toThrow(UnknownOperatorError);
    await expect(setOperatorRole({ storage, login: 'vic', role: 'owner' as never, by: 'ada' })).rejects.toThrow('role: one of viewer, approver, admin');

    const trail = await operatorAuditTrail({ storage, login: 'ada' });
    expect(trail.map((e) => [e.action, e.by, e.detail])).toEqual([
      ['role-changed', 'root', { from: 'approver', to: 'admin', reason: 'on call' }],
      ['added', 'root', { name: 'Ada', role: 'approver' }],
    ]);
    // The same role again changes nothing and writes nothing.
    await setOperatorRole({ storage, login: 'ada', role: 'admin', by: 'root' });
    expect(await operatorAuditTrail({ storage, login: 'ada' })).toHaveLength(2);
  });
});

describe('authorize', () => {
  const person = (role: 'viewer' | 'approver' | 'admin'): Principal => ({ kind: 'operator', login: role, role });
  const token = (scopes: Permission[], agents: string[] | null = null): Principal => ({
    kind: 'token',
    id: 't',
    name: 'svc',
    scopes,
    agents,
  });
  const allowed = (principal: Principal) => PERMISSIONS.filter((p) => authorize(principal, p).ok);

  it('gives each role and each scope exactly its permissions; admin implies all', () => {
    expect(allowed(person('viewer'))).toEqual(['read']);
    expect(allowed(person('approver'))).toEqual(['read', 'start', 'decide', 'events']);
    expect(allowed(person('admin'))).toEqual([...PERMISSIONS]);
    expect(allowed(token(['read', 'events']))).toEqual(['read', 'events']);
    expect(allowed(token(['admin']))).toEqual([...PERMISSIONS]);
    expect(authorize(person('viewer'), 'decide')).toEqual({
      ok: false,
      reason: 'forbidden',
      message: 'viewer (role viewer) may not decide: the role viewer allows read.',
    });
  });

  it('keeps a token limited to agents to runs of those agents', () => {
    const limited = token(['read', 'decide'], ['billing']);
    expect(authorize(limited, 'read', { agent: 'billing' }).ok).toBe(true);
    expect(authorize(limited, 'read', { agent: 'support' })).toMatchObject({ ok: false, reason: 'out-of-scope' });
    expect(authorize(token(['read']), 'read', { agent: 'support' }).ok).toBe(true);
    expect(authorize(person('viewer'), 'read', { agent: 'support' }).ok).toBe(true);
  });
});
