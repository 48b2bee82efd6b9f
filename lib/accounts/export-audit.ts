/**
 * A revealed export (`gnl export --reveal-secrets`: the run's secrets in clear, in a file) is an
 * operator's act on customer data, so it is audited like the changes to accounts: a row of the
 * append-only gnl.operator_audit, action `revealed-export`, naming the run. It is written BEFORE the
 * export is read, so no revealed export goes unrecorded (one that then fails is recorded as asked for).
 * Only an enabled operator account may reveal: the login is checked here, in the same transaction.
 */
import { eq } from 'drizzle-orm';
import { operatorAudit, operators } from '@/db/schema';
import { storageFromEnv } from '@/lib/durable/storage';
import { OperatorDisabledError, UnknownOperatorError } from './errors';
import { loginSchema, parseOrThrow } from './operator-input';
import { type AccountsContext, type Operator, operatorOf } from './operator-record';
import type { OperatorAuditAction } from './operators';

export async function auditRevealedExport(request: { login: string; runId: string } & AccountsContext): Promise<Operator> {
  return auditOperatorAct({ ...request, action: 'revealed-export', detail: { runId: request.runId }, what: 'a revealed export needs an operator account' });
}

/**
 * An operator's act on customer data (a revealed export, an erasure, an edit or an export of memory), recorded in gnl.operator_audit in
 * the transaction that checks the account: only an enabled one may act, and the row is written before
 * the act, so none goes unrecorded. UnknownOperatorError / OperatorDisabledError otherwise.
 */
export async function auditOperatorAct(
  request: {
    login: string;
    action: Extract<OperatorAuditAction, 'revealed-export' | 'erased-runs' | 'edited-memory' | 'memory-edit-refused' | 'exported-memory' | 'erased-memory'>;
    detail: Record<string, unknown>;
    what: string;
  } & AccountsContext,
): Promise<Operator> {
  const login = parseOrThrow(loginSchema, request.login, request.what);
  const db = await (request.storage ?? storageFromEnv()).database();
  const found = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(operators).where(eq(operators.login, login)).for('update').limit(1);
    if (!row || row.disabledAt) return row;
    await tx.insert(operatorAudit).values({ operatorId: row.id, login: row.login, action: request.action, by: row.login, detail: request.detail });
    return row;
  });
  if (!found) throw new UnknownOperatorError({ login });
  if (found.disabledAt) throw new OperatorDisabledError({ login, ...(found.disabledBy ? { disabledBy: found.disabledBy } : {}), disabledAt: found.disabledAt });
  return operatorOf(found);
}
