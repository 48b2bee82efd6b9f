/**
 * Erasing runs (docs/erasure.md) is an operator's act on customer data: only an enabled operator account
 * may erase, and the request is audited in the append-only gnl.operator_audit (action `erased-runs`, the
 * runs or subject and the reason) BEFORE anything is erased, so no erasure goes unrecorded; each run's
 * erasure is then recorded again, with its outcome, in gnl.erasures by the journal.
 */
import { eq } from 'drizzle-orm';
import { operatorAudit, operators } from '@/db/schema';
import type { EraseOutcome } from '@/lib/durable/storage';
import { storageFromEnv } from '@/lib/durable/storage';
import { OperatorDisabledError, UnknownOperatorError } from './errors';
import { loginSchema, parseOrThrow } from './operator-input';
import type { AccountsContext } from './operators';

export type EraseTarget = { runIds: string[] } | { subject: string };

export async function eraseRunsAs(request: { login: string; reason: string } & EraseTarget & AccountsContext): Promise<EraseOutcome[]> {
  const login = parseOrThrow(loginSchema, request.login, 'erasing runs needs an operator account');
  const storage = request.storage ?? storageFromEnv();
  const target = 'subject' in request ? { subject: request.subject } : { runIds: request.runIds };
  const db = await storage.database();
  const found = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(operators).where(eq(operators.login, login)).for('update').limit(1);
    if (!row || row.disabledAt) return row;
    await tx
      .insert(operatorAudit)
      .values({ operatorId: row.id, login: row.login, action: 'erased-runs', by: row.login, detail: { ...target, reason: request.reason } });
    return row;
  });
  if (!found) throw new UnknownOperatorError({ login });
  if (found.disabledAt) throw new OperatorDisabledError({ login, ...(found.disabledBy ? { disabledBy: found.disabledBy } : {}), disabledAt: found.disabledAt });
  return storage.erasure.erase({ ...target, by: found.login, reason: request.reason });
}
