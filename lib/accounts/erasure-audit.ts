/**
 * Erasing runs (docs/erasure.md) is an operator's act on customer data: only an enabled operator account
 * may erase, and the request is audited in the append-only gnl.operator_audit (action `erased-runs`, the
 * runs or subject and the reason) BEFORE anything is erased, so no erasure goes unrecorded; each run's
 * erasure is then recorded again, with its outcome, in gnl.erasures by the journal.
 */
import type { EraseOutcome } from '@/lib/durable/storage';
import { storageFromEnv } from '@/lib/durable/storage';
import { auditOperatorAct } from './export-audit';
import type { AccountsContext } from './operators';

export type EraseTarget = { runIds: string[] } | { subject: string };

export async function eraseRunsAs(request: { login: string; reason: string } & EraseTarget & AccountsContext): Promise<EraseOutcome[]> {
  const storage = request.storage ?? storageFromEnv();
  const target = 'subject' in request ? { subject: request.subject } : { runIds: request.runIds };
  const operator = await auditOperatorAct({
    storage,
    login: request.login,
    action: 'erased-runs',
    detail: { ...target, reason: request.reason },
    what: 'erasing runs needs an operator account',
  });
  return storage.erasure.erase({ ...target, by: operator.login, reason: request.reason });
}
