/** What the /people page shows: every account with its role, and (for admins) every API token, never a secret. Server-only. */
import 'server-only';
import { type ApiToken, listApiTokens, listOperators, type Operator } from '@/lib/accounts';

export interface WirePerson {
  login: string;
  name: string;
  role: Operator['role'];
  createdAt: string;
  createdBy: string;
  disabled?: { at: string; by: string; reason?: string };
}

export interface WireToken {
  name: string;
  prefix: string;
  scopes: string[];
  agents: string[] | null;
  createdAt: string;
  createdBy: string;
  expiresAt?: string;
  revoked?: { at: string; by: string };
  lastUsedAt?: string;
}

export async function loadPeople(): Promise<WirePerson[]> {
  return (await listOperators()).map((o) => ({
    login: o.login,
    name: o.name,
    role: o.role,
    createdAt: o.createdAt.toISOString(),
    createdBy: o.createdBy,
    ...(o.disabled ? { disabled: { at: o.disabled.at.toISOString(), by: o.disabled.by, ...(o.disabled.reason ? { reason: o.disabled.reason } : {}) } } : {}),
  }));
}

export async function loadTokens(): Promise<WireToken[]> {
  return (await listApiTokens()).map((t: ApiToken) => ({
    name: t.name,
    prefix: t.prefix,
    scopes: t.scopes,
    agents: t.agents,
    createdAt: t.createdAt.toISOString(),
    createdBy: t.createdBy,
    ...(t.expiresAt ? { expiresAt: t.expiresAt.toISOString() } : {}),
    ...(t.revoked ? { revoked: { at: t.revoked.at.toISOString(), by: t.revoked.by } } : {}),
    ...(t.lastUsedAt ? { lastUsedAt: t.lastUsedAt.toISOString() } : {}),
  }));
}
