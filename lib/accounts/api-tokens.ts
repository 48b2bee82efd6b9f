/**
 * API tokens: how a service (a queue consumer, a support desk's webhook, a mobile app's backend) calls
 * the HTTP API (lib/server, docs/api.md). Made, listed and revoked from the command line and the Studio,
 * every change audited (gnl.api_token_audit, append-only), every call too.
 *
 * A token is `gnl_` and 43 characters of base64url: 32 random bytes. Only its SHA-256 is kept (a token
 * has 256 bits of entropy, so a fast hash leaves nothing to guess; a password needs scrypt, a token
 * does not), so it is shown once, when it is made. A request's token is found by its hash in one read;
 * revoked and expired tokens are refused with their reason. Tokens are never deleted: the journal names
 * what they did (`token:<name>`).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, asc, desc, eq, max, sql } from 'drizzle-orm';
import { z } from 'zod';
import { apiTokenAudit, apiTokens } from '@/db/schema';
import { storageFromEnv } from '@/lib/durable/storage';
import { type Permission, PERMISSIONS, type Principal } from './authorize';
import { ApiTokenExistsError, UnknownApiTokenError } from './errors';
import { bySchema, parseOrThrow, reasonSchema } from './operator-input';
import type { AccountsContext } from './operator-record';

const TOKEN_PREFIX = 'gnl_';
const TOKEN_PATTERN = /^gnl_[A-Za-z0-9_-]{43}$/;

export interface ApiToken {
  id: string;
  name: string;
  /** The token's first characters (`gnl_` and 6 more), to tell tokens apart; not enough to use it. */
  prefix: string;
  scopes: Permission[];
  /** The agents and workflows it may touch; null: all. */
  agents: string[] | null;
  createdAt: Date;
  createdBy: string;
  expiresAt?: Date;
  revoked?: { at: Date; by: string };
  /** The last call made with it, from the audit. */
  lastUsedAt?: Date;
}

export const apiTokenNameSchema = z
  .string({ error: 'name: a string' })
  .trim()
  .toLowerCase()
  .min(2, 'name: at least 2 characters')
  .max(64, 'name: at most 64 characters')
  .regex(/^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/, 'name: letters, digits and . _ - only, starting and ending with a letter or digit');

const agentNameSchema = z.string().trim().min(1, 'agents: a name must not be empty').max(200, 'agents: a name is at most 200 characters');

export const createApiTokenSchema = z.strictObject({
  name: apiTokenNameSchema,
  scopes: z
    .array(z.enum(PERMISSIONS, { error: `scopes: each one of ${PERMISSIONS.join(', ')}` }))
    .min(1, `scopes: at least one of ${PERMISSIONS.join(', ')}`)
    .transform((scopes) => [...new Set(scopes)]),
  agents: z.array(agentNameSchema).min(1, 'agents: name at least one, or leave it out for all').max(100, 'agents: at most 100').optional(),
  expiresAt: z
    .date({ error: 'expiresAt: a date' })
    .refine((at) => at.getTime() > Date.now(), 'expiresAt: must be in the future')
    .optional(),
  by: bySchema,
});

function database(context: AccountsContext) {
  return (context.storage ?? storageFromEnv()).database();
}

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

type Row = typeof apiTokens.$inferSelect;

function tokenOf(row: Row, lastUsedAt?: Date | null): ApiToken {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as Permission[],
    agents: (row.agents as string[] | null) ?? null,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    ...(row.expiresAt ? { expiresAt: row.expiresAt } : {}),
    ...(row.revokedAt ? { revoked: { at: row.revokedAt, by: row.revokedBy ?? 'unknown' } } : {}),
    ...(lastUsedAt ? { lastUsedAt } : {}),
  };
}

/** Makes a token. `token` is the only copy of the secret: show it once. A taken name is ApiTokenExistsError. */
export async function createApiToken(
  request: { name: string; scopes: readonly string[]; agents?: readonly string[]; expiresAt?: Date; by: string } & AccountsContext,
): Promise<{ token: string; record: ApiToken }> {
  const { name, scopes, agents, expiresAt, by } = parseOrThrow(
    createApiTokenSchema,
    { name: request.name, scopes: request.scopes, agents: request.agents, expiresAt: request.expiresAt, by: request.by },
    'createApiToken refused the request',
  );
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const db = await database(request);
  const row = await db.transaction(async (tx) => {
    const [made] = await tx
      .insert(apiTokens)
      .values({
        id: randomUUID(),
        name,
        tokenHash: hashApiToken(token),
        prefix: token.slice(0, TOKEN_PREFIX.length + 6),
        scopes,
        agents: agents ?? null,
        createdBy: by,
        expiresAt: expiresAt ?? null,
      })
      .onConflictDoNothing({ target: apiTokens.name })
      .returning();
    if (made)
      await tx.insert(apiTokenAudit).values({
        tokenId: made.id,
        name,
        action: 'created',
        by,
        at: made.createdAt,
        detail: { scopes, agents: agents ?? null, expiresAt: expiresAt?.toISOString() ?? null },
      });
    return made;
  });
  if (!row) throw new ApiTokenExistsError({ name });
  return { token, record: tokenOf(row) };
}

/** Every token (revoked ones too), newest first, with the time of its last call. Never a secret or a hash. */
export async function listApiTokens(context: AccountsContext = {}): Promise<ApiToken[]> {
  const db = await database(context);
  const rows = await db.transaction((tx) =>
    tx
      .select({ row: apiTokens, lastUsedAt: max(apiTokenAudit.at) })
      .from(apiTokens)
      .leftJoin(apiTokenAudit, and(eq(apiTokenAudit.tokenId, apiTokens.id), eq(apiTokenAudit.action, 'call')))
      .groupBy(apiTokens.id)
      .orderBy(desc(apiTokens.createdAt), asc(apiTokens.name)),
  );
  return rows.map(({ row, lastUsedAt }) => tokenOf(row, lastUsedAt ? new Date(lastUsedAt as unknown as string) : undefined));
}

/** Revokes a token by name: refused from the next request on. Revoking a revoked token changes nothing and says so. */
export async function revokeApiToken(
  request: { name: string; by: string; reason?: string } & AccountsContext,
): Promise<{ token: ApiToken; alreadyRevoked: boolean }> {
  const { name, by, reason } = parseOrThrow(
    z.object({ name: apiTokenNameSchema, by: bySchema, reason: reasonSchema }),
    { name: request.name, by: request.by, reason: request.reason },
    'revokeApiToken refused the request',
  );
  const db = await database(request);
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(apiTokens).where(eq(apiTokens.name, name)).for('update').limit(1);
    if (!row) throw new UnknownApiTokenError({ name });
    if (row.revokedAt) return { token: tokenOf(row), alreadyRevoked: true };
    const [revoked] = await tx.update(apiTokens).set({ revokedAt: sql`now()`, revokedBy: by }).where(eq(apiTokens.id, row.id)).returning();
    await tx.insert(apiTokenAudit).values({ tokenId: row.id, name, action: 'revoked', by, detail: reason ? { reason } : {} });
    return { token: tokenOf(revoked as Row), alreadyRevoked: false };
  });
}

export type TokenCheck =
  | { ok: true; token: ApiToken; principal: Extract<Principal, { kind: 'token' }> }
  /** `malformed`: not a GNL token at all; `unknown`: no token has it; `revoked`, `expired`: it did once. `message` says so plainly. */
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' | 'expired'; message: string };

/** The token a request presents, checked: found by its hash, not revoked, not expired. */
export async function authenticateApiToken(token: string, context: AccountsContext = {}): Promise<TokenCheck> {
  if (!TOKEN_PATTERN.test(token)) return { ok: false, reason: 'malformed', message: 'The bearer token is not a GNL API token (gnl_ and 43 characters).' };
  const db = await database(context);
  const [row] = await db.transaction((tx) =>
    tx
      .select()
      .from(apiTokens)
      .where(eq(apiTokens.tokenHash, hashApiToken(token)))
      .limit(1),
  );
  if (!row) return { ok: false, reason: 'unknown', message: 'No API token matches the one presented: it was never made here, or it was mistyped.' };
  const record = tokenOf(row);
  if (record.revoked)
    return {
      ok: false,
      reason: 'revoked',
      message: `The API token "${record.name}" was revoked by ${record.revoked.by} at ${record.revoked.at.toISOString()}.`,
    };
  if (record.expiresAt && record.expiresAt.getTime() <= Date.now())
    return { ok: false, reason: 'expired', message: `The API token "${record.name}" expired at ${record.expiresAt.toISOString()}.` };
  return { ok: true, token: record, principal: { kind: 'token', id: record.id, name: record.name, scopes: record.scopes, agents: record.agents } };
}

/** One call made with a token: what it asked and what it was answered, in the token's audit. */
export async function auditApiCall(
  call: { tokenId: string; name: string; method: string; route: string; status: number; runId?: string } & AccountsContext,
): Promise<void> {
  const db = await database(call);
  await db.transaction((tx) =>
    tx.insert(apiTokenAudit).values({
      tokenId: call.tokenId,
      name: call.name,
      action: 'call',
      by: `token:${call.name}`,
      detail: { method: call.method, route: call.route, status: call.status, ...(call.runId ? { runId: call.runId } : {}) },
    }),
  );
}

export interface ApiTokenAuditEntry {
  id: number;
  name: string;
  action: 'created' | 'revoked' | 'call';
  by: string;
  at: Date;
  detail: Record<string, unknown>;
}

/** A token's audit, oldest first (at most `limit`, default 1,000, from the newest back). */
export async function apiTokenAuditTrail(name: string, options: { limit?: number } & AccountsContext = {}): Promise<ApiTokenAuditEntry[]> {
  const parsedName = parseOrThrow(apiTokenNameSchema, name, 'apiTokenAuditTrail refused the name');
  const db = await database(options);
  const rows = await db.transaction((tx) =>
    tx
      .select()
      .from(apiTokenAudit)
      .where(eq(apiTokenAudit.name, parsedName))
      .orderBy(desc(apiTokenAudit.id))
      .limit(options.limit ?? 1000),
  );
  return rows.reverse().map((row) => ({ ...row, action: row.action as ApiTokenAuditEntry['action'], detail: row.detail as Record<string, unknown> }));
}
