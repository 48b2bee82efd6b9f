/**
 * Editing a resource's working memory from the Studio (docs/memory.md#in-the-studio): in the signed-in
 * operator's name with a reason, audited in gnl.operator_audit (action `edited-memory`) before anything
 * is written, then written as the version after the one the operator saw. The version row itself keeps
 * who and why; a version written meanwhile (an agent's update, another operator) is a conflict the form
 * shows with the current version, never a lost update. The form's request id is the write's key: a
 * second click of the same form writes nothing more. Server-only.
 */
import 'server-only';
import { auditOperatorAct, OperatorDisabledError, OperatorInputError, UnknownOperatorError } from '@/lib/accounts';
import { MemoryInputError, REDACTED } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import type { Refusal } from './operator-actions';

export interface MemoryEditRequest {
  resource: string;
  /** The version the operator edited (0: the resource had none). */
  expectedVersion: number;
  value: Record<string, unknown>;
  reason: string;
  by: string;
  /** One per opened form: the write's idempotency key. */
  requestId: string;
}

export type MemoryEditResult =
  | { ok: true; version: number; replayed: boolean }
  | Refusal
  | { ok: false; kind: 'changed'; message: string; current?: { version: number; updatedBy: string; at: string } };

export async function editWorkingMemory(request: MemoryEditRequest): Promise<MemoryEditResult> {
  try {
    const storage = storageFromEnv();
    await auditOperatorAct({
      storage,
      login: request.by,
      action: 'edited-memory',
      // Before the write (it is also the account's check), naming the request: a second click of one form is the same request.
      detail: { resource: request.resource, expectedVersion: request.expectedVersion, reason: request.reason, requestId: request.requestId },
      what: 'editing memory needs an operator account',
    });
    // The page shows secrets redacted (reads/memory.ts): a value the operator left redacted is the stored one, kept.
    const stored = await storage.memory.working(request.resource);
    const value = stored?.version === request.expectedVersion ? keepRedacted(request.value, stored.value) : request.value;
    const written = await storage.memory.writeWorking({
      resource: request.resource,
      expectedVersion: request.expectedVersion,
      value,
      by: request.by,
      reason: request.reason,
      key: `studio:memory-edit:${request.requestId}`,
    });
    if (written.ok) return { ok: true, version: written.version, replayed: written.replayed };
    const current = written.current;
    // The audit says it was not written: the row above recorded the request, this one its refusal.
    await auditOperatorAct({
      storage,
      login: request.by,
      action: 'memory-edit-refused',
      detail: {
        resource: request.resource,
        expectedVersion: request.expectedVersion,
        requestId: request.requestId,
        ...(current ? { currentVersion: current.version } : {}),
      },
      what: 'editing memory needs an operator account',
    });
    return {
      ok: false,
      kind: 'changed',
      message: current
        ? `Not saved: version ${current.version} was written meanwhile by ${current.updatedBy}. Read it, then edit again.`
        : 'Not saved: the working memory changed meanwhile. Read it, then edit again.',
      ...(current ? { current: { version: current.version, updatedBy: current.updatedBy, at: current.at } } : {}),
    };
  } catch (error) {
    // The request's own fault (who asks, the value, the resource): said as it is. Anything else (the journal away)
    // is the server's, logged with its cause and said as such.
    if (
      OperatorInputError.isInstance(error) ||
      UnknownOperatorError.isInstance(error) ||
      OperatorDisabledError.isInstance(error) ||
      MemoryInputError.isInstance(error)
    )
      return { ok: false, kind: 'invalid', message: error.message };
    console.error('studio: memory edit', error);
    return { ok: false, kind: 'error', message: 'Something went wrong; the Studio’s server log says why. Read the page again before you retry.' };
  }
}

/**
 * The edited value with each "•••• redacted" placeholder (what the page showed for a secret) replaced by
 * the stored value at the same place: the browser never gets a secret, and saving the form does not write
 * the placeholder over it. A placeholder with nothing stored at its place stays as typed.
 */
export function keepRedacted<T>(edited: T, stored: unknown): T {
  if (edited === REDACTED) return (stored === undefined ? edited : stored) as T;
  if (Array.isArray(edited)) return edited.map((item, i) => keepRedacted(item, Array.isArray(stored) ? stored[i] : undefined)) as T;
  if (edited !== null && typeof edited === 'object') {
    const from = stored !== null && typeof stored === 'object' && !Array.isArray(stored) ? (stored as Record<string, unknown>) : {};
    return Object.fromEntries(Object.entries(edited).map(([key, item]) => [key, keepRedacted(item, Object.hasOwn(from, key) ? from[key] : undefined)])) as T;
  }
  return edited;
}
