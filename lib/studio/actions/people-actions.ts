/**
 * People and API tokens from the Studio (the page /people): an admin gives an account another role,
 * signs a person out everywhere, makes and revokes API tokens; anyone signs themselves out everywhere.
 * Each one call into lib/accounts, audited there in the actor's name. Server-only: the server actions in
 * app/(studio)/actions.ts check the session and the permission first.
 */
import 'server-only';
import { ZodError } from 'zod';
import {
  ApiTokenExistsError,
  type ApiToken,
  createApiToken,
  OperatorInputError,
  revokeApiToken,
  type Role,
  setOperatorRole,
  signOutEverywhere,
  UnknownApiTokenError,
  UnknownOperatorError,
} from '@/lib/accounts';
import type { ActionResult, Refusal } from './operator-actions';

function refusal(error: unknown, what: string): Refusal {
  if (
    OperatorInputError.isInstance(error) ||
    UnknownOperatorError.isInstance(error) ||
    ApiTokenExistsError.isInstance(error) ||
    UnknownApiTokenError.isInstance(error) ||
    error instanceof ZodError
  )
    return { ok: false, kind: 'invalid', message: error.message };
  console.error(`studio: ${what} failed:`, error);
  return { ok: false, kind: 'error', message: `Could not ${what}; the Studio’s server log says why.` };
}

export async function changeRole(request: { login: string; role: Role; reason: string; by: string }): Promise<ActionResult<{ role: Role }>> {
  try {
    const operator = await setOperatorRole(request);
    return { ok: true, role: operator.role };
  } catch (error) {
    return refusal(error, 'change the role');
  }
}

export async function signOutPerson(request: { login: string; by: string }): Promise<ActionResult<{ sessions: number }>> {
  try {
    const { sessions } = await signOutEverywhere(request.login, { by: request.by });
    return { ok: true, sessions };
  } catch (error) {
    return refusal(error, 'sign out everywhere');
  }
}

/** The token is in the answer this once: the page shows it, and nothing keeps it. */
export async function makeToken(request: {
  name: string;
  scopes: string[];
  agents?: string[];
  expiresInDays?: number;
  by: string;
}): Promise<ActionResult<{ token: string; record: ApiToken }>> {
  try {
    const made = await createApiToken({
      name: request.name,
      scopes: request.scopes,
      by: request.by,
      ...(request.agents && request.agents.length > 0 ? { agents: request.agents } : {}),
      ...(request.expiresInDays ? { expiresAt: new Date(Date.now() + request.expiresInDays * 86_400_000) } : {}),
    });
    return { ok: true, token: made.token, record: made.record };
  } catch (error) {
    return refusal(error, 'make the token');
  }
}

export async function revokeToken(request: { name: string; reason: string; by: string }): Promise<ActionResult<{ alreadyRevoked: boolean }>> {
  try {
    const done = await revokeApiToken(request);
    return { ok: true, alreadyRevoked: done.alreadyRevoked };
  } catch (error) {
    return refusal(error, 'revoke the token');
  }
}
