/**
 * An operator account as every accounts module reads it: the context they are handed (which storage)
 * and the account without its password hash, built from its gnl.operators row. Its own file so that
 * operators.ts (accounts) and sessions.ts (sign-in sessions), which call each other's functions, share
 * it without importing each other both ways.
 */
import type { operators } from '@/db/schema';
import type { Storage } from '@/lib/durable/storage';
import type { Role } from './authorize';

export interface AccountsContext {
  /** Default: storageFromEnv() (DATABASE_URL, else the embedded journal). */
  storage?: Storage;
}

/** An operator account as callers see it: never the password hash. */
export interface Operator {
  /** Stable id: what a Studio session should point at (a login could one day be renamed). */
  id: string;
  /** Lower-case sign-in name or e-mail. */
  login: string;
  name: string;
  createdAt: Date;
  createdBy: string;
  /** What the person may do (authorize.ts): `viewer`, `approver` or `admin`. */
  role: Role;
  /** Present once the account is disabled: it cannot sign in. */
  disabled?: { at: Date; by: string; reason?: string };
}

/** A gnl.operators row as drizzle reads it (with the password hash: never handed to callers). */
export type OperatorRow = typeof operators.$inferSelect;

export function operatorOf(row: OperatorRow): Operator {
  return {
    id: row.id,
    login: row.login,
    name: row.name,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    role: row.role as Role,
    ...(row.disabledAt
      ? { disabled: { at: row.disabledAt, by: row.disabledBy ?? 'unknown', ...(row.disableReason ? { reason: row.disableReason } : {}) } }
      : {}),
  };
}
