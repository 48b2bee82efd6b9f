/**
 * Studio sessions (gnl.operator_sessions): one row per sign-in, named by the signed session cookie.
 * The cookie alone proves only that this Studio issued it; whether the session is still on is this row,
 * read with its operator in ONE statement on every page, action and route (sessionOperator), so ending
 * a session costs no extra round trip. A session ends:
 *
 * - signing out in a browser (endOperatorSession): that session only;
 * - `gnl operators sign-out <login>` (signOutEverywhere): every session of that operator;
 * - disabling the account (operators.ts disableOperator, in the same transaction): every session.
 *
 * Sign-out and sign-out everywhere are audited (gnl.operator_audit) with who and when, in the same
 * transaction as the revocation.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { operatorAudit, operatorSessions, operators } from '@/db/schema';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { UnknownOperatorError } from './errors';
import { bySchema, loginSchema, parseOrThrow } from './operator-input';
import { type AccountsContext, type Operator, operatorOf } from './operator-record';

/** A transaction on the journal's database (either driver), as db.transaction hands it over. */
type Tx = Parameters<Parameters<Awaited<ReturnType<Storage['database']>>['transaction']>[0]>[0];

export type SessionEndReason = 'signed-out' | 'signed-out-everywhere' | 'disabled';

/** Expired sessions are kept this long (who was signed in when), then pruned by the next sign-in. */
const KEEP_EXPIRED_MS = 7 * 24 * 60 * 60 * 1000;

function database(context: AccountsContext) {
  return (context.storage ?? storageFromEnv()).database();
}

/** A session or operator id as a cookie carries it (anything else names no session). */
const idSchema = z.string().min(1).max(100);

/** Starts a session for an operator (after the password was checked); its id goes into the cookie. */
export async function startOperatorSession(
  request: { operatorId: string; expiresAt: Date } & AccountsContext,
): Promise<{ sessionId: string; expiresAt: Date }> {
  const sessionId = randomUUID();
  const db = await database(request);
  await db.transaction(async (tx) => {
    await tx.delete(operatorSessions).where(lt(operatorSessions.expiresAt, new Date(Date.now() - KEEP_EXPIRED_MS)));
    await tx.insert(operatorSessions).values({ id: sessionId, operatorId: request.operatorId, expiresAt: request.expiresAt });
  });
  return { sessionId, expiresAt: request.expiresAt };
}

/**
 * The operator of a session that is still on: the session exists, belongs to `operatorId` (the cookie's
 * subject), was not revoked, and its account is not disabled. One statement: the session row joined to
 * its operator. Undefined otherwise (never throws for a bad id).
 */
export async function sessionOperator(claims: { sessionId: string; operatorId: string }, context: AccountsContext = {}): Promise<Operator | undefined> {
  if (!idSchema.safeParse(claims.sessionId).success || !idSchema.safeParse(claims.operatorId).success) return undefined;
  const db = await database(context);
  const [row] = await db.transaction((tx) =>
    tx
      .select({ operator: operators, revokedAt: operatorSessions.revokedAt })
      .from(operatorSessions)
      .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
      .where(and(eq(operatorSessions.id, claims.sessionId), eq(operatorSessions.operatorId, claims.operatorId)))
      .limit(1),
  );
  if (!row || row.revokedAt || row.operator.disabledAt) return undefined;
  return operatorOf(row.operator);
}

/** Ends every open session of an operator inside `tx`; how many were open. */
export async function revokeOperatorSessions(tx: Tx, request: { operatorId: string; by: string; reason: SessionEndReason }): Promise<number> {
  const ended = await tx
    .update(operatorSessions)
    .set({ revokedAt: sql`now()`, revokedBy: request.by, revokeReason: request.reason })
    .where(and(eq(operatorSessions.operatorId, request.operatorId), isNull(operatorSessions.revokedAt)))
    .returning({ id: operatorSessions.id });
  return ended.length;
}

/**
 * Signs one session out (the browser's Sign out): revoked, and audited as `signed-out` by the operator.
 * False when it was over already (revoked, or no such session): nothing is written then.
 */
export async function endOperatorSession(request: { sessionId: string; operator: Operator } & AccountsContext): Promise<boolean> {
  if (!idSchema.safeParse(request.sessionId).success) return false;
  const { operator } = request;
  const db = await database(request);
  return db.transaction(async (tx) => {
    const [ended] = await tx
      .update(operatorSessions)
      .set({ revokedAt: sql`now()`, revokedBy: operator.login, revokeReason: 'signed-out' })
      .where(and(eq(operatorSessions.id, request.sessionId), eq(operatorSessions.operatorId, operator.id), isNull(operatorSessions.revokedAt)))
      .returning();
    if (!ended) return false;
    await tx.insert(operatorAudit).values({
      operatorId: operator.id,
      login: operator.login,
      action: 'signed-out',
      by: operator.login,
      at: ended.revokedAt ?? new Date(),
      // The id's first characters tell sessions apart in the audit without repeating what the cookie carries.
      detail: { session: ended.id.slice(0, 8) },
    });
    return true;
  });
}

/**
 * Ends every session of an operator (`gnl operators sign-out <login>`), audited as
 * `signed-out-everywhere` with who, when and how many sessions were open. The account stays enabled:
 * the operator can sign in again.
 */
export async function signOutEverywhere(login: string, request: { by: string } & AccountsContext): Promise<{ operator: Operator; sessions: number }> {
  const parsed = parseOrThrow(bySchema, request.by, 'signOutEverywhere refused the request');
  const parsedLogin = parseOrThrow(loginSchema, login, 'signOutEverywhere refused the request');
  const db = await database(request);
  const result = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(operators).where(eq(operators.login, parsedLogin)).limit(1);
    if (!row) return undefined;
    const sessions = await revokeOperatorSessions(tx, { operatorId: row.id, by: parsed, reason: 'signed-out-everywhere' });
    await tx.insert(operatorAudit).values({ operatorId: row.id, login: row.login, action: 'signed-out-everywhere', by: parsed, detail: { sessions } });
    return { operator: operatorOf(row), sessions };
  });
  if (!result) throw new UnknownOperatorError({ login: parsedLogin });
  return result;
}
