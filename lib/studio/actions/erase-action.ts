/**
 * Erasing a run from the Studio (docs/erasure.md): in the signed-in operator's name, audited before
 * anything is erased (lib/accounts/erasure-audit.ts), one run. A refusal (the run may still run, it has
 * no key of its own) is a result with the journal's reason, never thrown. Server-only.
 */
import 'server-only';
import { eraseRunsAs, OperatorDisabledError, OperatorInputError, UnknownOperatorError } from '@/lib/accounts';
import { InvalidRunIdError, JournalDataError } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import type { ActionResult } from './operator-actions';

export async function eraseRun(request: { runId: string; by: string; reason: string }): Promise<ActionResult<{ erasedBy: string; erasedAt: string }>> {
  try {
    const [outcome] = await eraseRunsAs({ storage: storageFromEnv(), login: request.by, reason: request.reason, runIds: [request.runId] });
    if (!outcome) return { ok: false, kind: 'error', message: 'The journal answered nothing for this run.' };
    if (outcome.outcome === 'erased') return { ok: true, erasedBy: request.by, erasedAt: outcome.at.toISOString() };
    if (outcome.outcome === 'already-erased') return { ok: true, erasedBy: outcome.erasure.by, erasedAt: outcome.erasure.at.toISOString() };
    return { ok: false, kind: 'invalid', message: `Not erased: ${outcome.why}.` };
  } catch (error) {
    // The request's own fault (who asks, the run id, the reason): said as it is. Anything else (the journal away,
    // the run held elsewhere) is the server's, logged with its cause and said as such.
    if (isEraseInputError(error)) return { ok: false, kind: 'invalid', message: error.message };
    console.error('studio: erase', error);
    return { ok: false, kind: 'error', message: 'Something went wrong; nothing was erased that the journal would not say so. Try again.' };
  }
}

/** Whether this Studio can erase runs at all: a journal key is set (runs recorded with run keys on have keys to destroy). */
export function erasureAvailable(): boolean {
  return storageFromEnv().encryptsSecrets;
}

function isEraseInputError(error: unknown): error is Error {
  return (
    OperatorInputError.isInstance(error) ||
    UnknownOperatorError.isInstance(error) ||
    OperatorDisabledError.isInstance(error) ||
    InvalidRunIdError.isInstance(error) ||
    JournalDataError.isInstance(error)
  );
}
