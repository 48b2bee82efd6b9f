/**
 * Who may do what: the one authorization module. A person acts through a role, a service through an API
 * token's scopes; both come down to permissions, and every page, action, route and command asks
 * `authorize(principal, permission, target)` rather than looking at a role or a scope itself.
 *
 * - `read`: runs, their journals, the inbox. `start`: start runs. `decide`: approve, reject, settle an
 *   unknown outcome, provide a result, resume, cancel. `events`: send an event to a workflow run.
 *   `admin`: accounts, tokens, roles; it implies every other permission.
 * - Roles: `viewer` reads; `approver` reads, starts, decides and sends events; `admin` does everything.
 * - A token may be limited to agents (and workflows) by name: a run of another is out of its scope.
 *
 * Browser-safe (no database): the Studio's pages use it to show only what a person may do.
 */
export const PERMISSIONS = ['read', 'start', 'decide', 'events', 'admin'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['viewer', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  viewer: ['read'],
  approver: ['read', 'start', 'decide', 'events'],
  admin: PERMISSIONS,
};

export type Principal =
  | { kind: 'operator'; login: string; role: Role }
  | { kind: 'token'; id: string; name: string; scopes: readonly Permission[]; agents: readonly string[] | null };

export type Authorization =
  | { ok: true }
  /** `forbidden`: the permission is missing; `out-of-scope`: a token limited to other agents. `message` says which, to show as is. */
  | { ok: false; reason: 'forbidden' | 'out-of-scope'; message: string };

/** How the journal and the audit name what the principal did: an operator's login, or `token:<name>`. */
export function actorOf(principal: Principal): string {
  return principal.kind === 'operator' ? principal.login : `token:${principal.name}`;
}

/**
 * The role a principal decides with, for a call whose approval rule names one (ApprovalRule's `role`): an
 * operator's own; a token's by its scopes (admin: admin; decide: approver; else viewer).
 */
export function roleOf(principal: Principal): Role {
  if (principal.kind === 'operator') return principal.role;
  return principal.scopes.includes('admin') ? 'admin' : principal.scopes.includes('decide') ? 'approver' : 'viewer';
}

/** The permissions the principal holds (admin: all of them). */
export function permissionsOf(principal: Principal): readonly Permission[] {
  const held = principal.kind === 'operator' ? ROLE_PERMISSIONS[principal.role] : principal.scopes;
  return held.includes('admin') ? PERMISSIONS : held;
}

/**
 * Whether `principal` may do `permission`, on a run of `target.agent` when it is given (the agent's or
 * workflow's registered name; a run's `input.agent ?? input.workflow.name`).
 */
export function authorize(principal: Principal, permission: Permission, target: { agent?: string } = {}): Authorization {
  if (!permissionsOf(principal).includes(permission)) {
    const who = principal.kind === 'operator' ? `${principal.login} (role ${principal.role})` : `The token "${principal.name}"`;
    const holds =
      principal.kind === 'operator'
        ? `the role ${principal.role} allows ${ROLE_PERMISSIONS[principal.role].join(', ')}`
        : `its scopes are ${principal.scopes.join(', ')}`;
    return { ok: false, reason: 'forbidden', message: `${who} may not ${permission}: ${holds}.` };
  }
  if (principal.kind === 'token' && principal.agents !== null && target.agent !== undefined && !principal.agents.includes(target.agent))
    return {
      ok: false,
      reason: 'out-of-scope',
      // The run's own agent is not named: the token may not read it.
      message: `The token "${principal.name}" is limited to ${principal.agents.map((a) => `"${a}"`).join(', ')}; this run is of another agent.`,
    };
  return { ok: true };
}

/** Whether the principal may touch runs of `agent` at all (a token limited to other agents may not start one of it). */
export function agentInScope(principal: Principal, agent: string): boolean {
  return principal.kind === 'operator' || principal.agents === null || principal.agents.includes(agent);
}
