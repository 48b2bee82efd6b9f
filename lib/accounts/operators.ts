/**
 * Operator accounts in the journal's database (gnl.operators, gnl.operator_audit): add, list, look up,
 * disable, verify a password. Every change writes its audit row in the same transaction as the change,
 * so an account never changes without a record of who changed it and when. Accounts are never deleted:
 * the journal's decisions keep naming them.
 *
 * Works on either storage (embedded PGlite or Postgres) through drizzle's query builder, which maps
 * timestamps to Dates on both drivers.
 */
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { and, asc, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { operatorAudit, operators } from '@/db/schema';
import { storageFromEnv } from '@/lib/durable/storage';
import { OperatorDisabledError, OperatorExistsError, OperatorInputError, UnknownOperatorError } from './errors';
import { z } from 'zod';
import { addOperatorSchema, bySchema, disableOperatorSchema, loginSchema, parseOrThrow, reasonSchema } from './operator-input';
import { hashPassword, verifyAgainstNothing, verifyPassword } from './password-hash';
import { type AccountsContext, type Operator, type OperatorRow as Row, operatorOf } from './operator-record';
import { revokeOperatorSessions } from './sessions';
import { ROLES, type Role } from './authorize';

export { type AccountsContext, type Operator, operatorOf } from './operator-record';

/** `revealed-export`: the operator exported a run with its secrets in clear (export-audit.ts; detail `{ runId }`). */
export type OperatorAuditAction =
  | 'added'
  | 'disabled'
  | 'signed-out'
  | 'signed-out-everywhere'
  | 'revealed-export'
  | 'erased-runs'
  | 'edited-memory'
  | 'memory-edit-refused'
  | 'exported-memory'
  | 'erased-memory'
  | 'role-changed';

export interface OperatorAuditEntry {
  id: number;
  operatorId: string;
  login: string;
  action: OperatorAuditAction;
  by: string;
  at: Date;
  detail: Record<string, unknown>;
}

export type VerifyResult =
  | { ok: true; operator: Operator }
  /**
   * `invalid-credentials`: no such login, or the wrong password (deliberately one answer, in the same
   * time either way). `disabled`: the password was right but the account is disabled (only someone who
   * knows the password learns that).
   */
  | { ok: false; reason: 'invalid-credentials' | 'disabled'; message: string };

function database(context: AccountsContext) {
  return (context.storage ?? storageFromEnv()).database();
}

/** Who makes a change when the caller does not say: the OS account running this process. */
export function processActor(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry for this uid (some containers): keep "unknown"
  }
  return `os:${user}@${hostname()}`;
}

async function rowByLogin(context: AccountsContext, login: string): Promise<Row | undefined> {
  const db = await database(context);
  return db.transaction(async (tx) => (await tx.select().from(operators).where(eq(operators.login, login)).limit(1))[0]);
}

/**
 * Adds an account. The password (at least 12 characters) is hashed with scrypt and a salt of its own;
 * the plain text is kept nowhere. A taken login is OperatorExistsError; bad input OperatorInputError.
 */
export async function addOperator(request: { login: string; name: string; password: string; by?: string; role?: Role } & AccountsContext): Promise<Operator> {
  const { login, name, password, by, role } = parseOrThrow(
    addOperatorSchema,
    { login: request.login, name: request.name, password: request.password, by: request.by ?? processActor(), role: request.role },
    'addOperator refused the request',
  );
  const passwordHash = await hashPassword(password);
  const db = await database(request);
  const added = await db.transaction(async (tx) => {
    // Without a role: the first account administers (someone must assign the others' roles), the others approve.
    const first = role === undefined && (await tx.select({ n: count() }).from(operators))[0]?.n === 0;
    const given: Role = role ?? (first ? 'admin' : 'approver');
    const [row] = await tx
      .insert(operators)
      .values({ id: randomUUID(), login, name, passwordHash, createdBy: by, role: given })
      .onConflictDoNothing({ target: operators.login })
      .returning();
    if (row) await tx.insert(operatorAudit).values({ operatorId: row.id, login, action: 'added', by, at: row.createdAt, detail: { name, role: given } });
    return row;
  });
  if (added) return operatorOf(added);
  const existing = await rowByLogin(request, login);
  throw new OperatorExistsError({ login, ...(existing ? { createdBy: existing.createdBy, createdAt: existing.createdAt } : {}) });
}

/** Every account, disabled ones included unless `includeDisabled: false`, sorted by login. */
export async function listOperators(options: { includeDisabled?: boolean } & AccountsContext = {}): Promise<Operator[]> {
  const db = await database(options);
  const rows = await db.transaction((tx) =>
    tx
      .select()
      .from(operators)
      .where(options.includeDisabled === false ? isNull(operators.disabledAt) : undefined)
      .orderBy(asc(operators.login)),
  );
  return rows.map(operatorOf);
}

/** The account with this login (any case), or undefined. Disabled accounts are returned too: check `disabled`. */
export async function findOperator(login: string, context: AccountsContext = {}): Promise<Operator | undefined> {
  const parsed = loginSchema.safeParse(login);
  if (!parsed.success) return undefined;
  const row = await rowByLogin(context, parsed.data);
  return row && operatorOf(row);
}

/** The account with this id (what a session stores), or undefined. A session must end when `disabled` is set. */
export async function getOperator(id: string, context: AccountsContext = {}): Promise<Operator | undefined> {
  if (typeof id !== 'string' || id.length === 0 || id.length > 100) return undefined;
  const db = await database(context);
  const [row] = await db.transaction((tx) => tx.select().from(operators).where(eq(operators.id, id)).limit(1));
  return row && operatorOf(row);
}

/** How many accounts exist (only enabled ones with `enabledOnly`): the Studio's first start creates one when there are none. */
export async function countOperators(options: { enabledOnly?: boolean } & AccountsContext = {}): Promise<number> {
  const db = await database(options);
  const [row] = await db.transaction((tx) =>
    tx
      .select({ n: count() })
      .from(operators)
      .where(options.enabledOnly ? isNull(operators.disabledAt) : undefined),
  );
  return Number(row?.n ?? 0);
}

/**
 * Disables an account for good: it can no longer sign in, and its Studio sessions are revoked in the
 * same transaction (sessions.ts; the audit row's detail says how many were open). Done once: a second disable is OperatorDisabledError naming who did it first.
 */
export async function disableOperator(login: string, request: { by: string; reason?: string } & AccountsContext): Promise<Operator> {
  const parsed = parseOrThrow(disableOperatorSchema, { login, by: request.by, reason: request.reason }, 'disableOperator refused the request');
  const reason = parsed.reason || undefined;
  const db = await database(request);
  const disabled = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(operators)
      .set({ disabledAt: sql`now()`, disabledBy: parsed.by, disableReason: reason ?? null })
      .where(and(eq(operators.login, parsed.login), isNull(operators.disabledAt)))
      .returning();
    if (row) {
      const sessions = await revokeOperatorSessions(tx, { operatorId: row.id, by: parsed.by, reason: 'disabled' });
      await tx.insert(operatorAudit).values({
        operatorId: row.id,
        login: row.login,
        action: 'disabled',
        by: parsed.by,
        at: row.disabledAt ?? new Date(),
        detail: { ...(reason ? { reason } : {}), sessions },
      });
    }
    return row;
  });
  if (disabled) return operatorOf(disabled);
  const existing = await rowByLogin(request, parsed.login);
  if (!existing) throw new UnknownOperatorError({ login: parsed.login });
  throw new OperatorDisabledError({
    login: parsed.login,
    ...(existing.disabledBy ? { disabledBy: existing.disabledBy } : {}),
    ...(existing.disabledAt ? { disabledAt: existing.disabledAt } : {}),
  });
}

/**
 * Checks a sign-in. Never throws for bad credentials: an unknown login, a malformed one and a wrong
 * password are the same answer, after the same scrypt work (so timing does not tell them apart either),
 * and the hash comparison is constant-time. A disabled account is refused even with the right password.
 */
export async function verifyOperator(login: string, password: string, context: AccountsContext = {}): Promise<VerifyResult> {
  const invalid = { ok: false, reason: 'invalid-credentials', message: 'Wrong login or password.' } as const;
  const secret = typeof password === 'string' ? password : '';
  const parsed = loginSchema.safeParse(login);
  const row = parsed.success ? await rowByLogin(context, parsed.data) : undefined;
  if (!row) return verifyAgainstNothing(secret).then(() => invalid);
  if (!(await verifyPassword(secret, row.passwordHash))) return invalid;
  if (row.disabledAt) return { ok: false, reason: 'disabled', message: 'This operator account is disabled.' };
  return { ok: true, operator: operatorOf(row) };
}

/** The audit trail, newest first: of one account (by login), or of all. */
export async function operatorAuditTrail(options: { login?: string; limit?: number } & AccountsContext = {}): Promise<OperatorAuditEntry[]> {
  const login = options.login === undefined ? undefined : parseOrThrow(loginSchema, options.login, 'operatorAuditTrail refused the request');
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 100), 1), 1000);
  const db = await database(options);
  const rows = await db.transaction((tx) =>
    tx
      .select()
      .from(operatorAudit)
      .where(login === undefined ? undefined : eq(operatorAudit.login, login))
      .orderBy(desc(operatorAudit.id))
      .limit(limit),
  );
  return rows.map((row) => ({ ...row, action: row.action as OperatorAuditAction, detail: row.detail as Record<string, unknown> }));
}

/**
 * Gives the account another role (authorize.ts), audited `role-changed` with the old and new role. The
 * last enabled admin keeps the role: with none, nobody could assign roles again (short of the command line).
 */
export async function setOperatorRole(request: { login: string; role: Role; by: string; reason?: string } & AccountsContext): Promise<Operator> {
  const parsed = parseOrThrow(
    z.object({ login: loginSchema, role: z.enum(ROLES, { error: `role: one of ${ROLES.join(', ')}` }), by: bySchema, reason: reasonSchema }),
    { login: request.login, role: request.role, by: request.by, reason: request.reason },
    'setOperatorRole refused the request',
  );
  const db = await database(request);
  return db.transaction(async (tx) => {
    // Every account row locked in one order: two admins demoting each other at once cannot both pass the last-admin check.
    const rows = await tx.select().from(operators).orderBy(asc(operators.id)).for('update');
    const row = rows.find((r) => r.login === parsed.login);
    if (!row) throw new UnknownOperatorError({ login: parsed.login });
    if (row.role === parsed.role) return operatorOf(row);
    const admins = rows.filter((r) => r.role === 'admin' && !r.disabledAt);
    if (row.role === 'admin' && admins.length === 1 && !row.disabledAt)
      throw new OperatorInputError({
        what: 'setOperatorRole refused the request',
        problems: [`${row.login} is the last admin: make another account admin first`],
      });
    const [changed] = await tx.update(operators).set({ role: parsed.role }).where(eq(operators.id, row.id)).returning();
    await tx.insert(operatorAudit).values({
      operatorId: row.id,
      login: row.login,
      action: 'role-changed',
      by: parsed.by,
      detail: { from: row.role, to: parsed.role, ...(parsed.reason ? { reason: parsed.reason } : {}) },
    });
    return operatorOf(changed as Row);
  });
}
