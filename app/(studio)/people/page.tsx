import type { Metadata } from 'next';
import { connection } from 'next/server';
import { PersonActions, RevokeTokenButton, TokenCreateForm } from '@/components/people/people-actions';
import { Badge } from '@/components/ui/badge';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { authorize, PERMISSIONS } from '@/lib/accounts';
import { requireOperator } from '@/lib/studio/auth/session';
import { loadPeople, loadTokens } from '@/lib/studio/reads/people';

export const metadata: Metadata = { title: 'People and tokens' };

const ROLE_TEXT = { viewer: 'reads', approver: 'reads, starts, decides, sends events', admin: 'everything: people, roles, tokens, erasure' } as const;

export default async function PeoplePage() {
  await connection(); // the journal is read per request, never prerendered
  const operator = await requireOperator();
  const admin = authorize({ kind: 'operator', login: operator.login, role: operator.role }, 'admin').ok;
  const [people, tokens] = await Promise.all([loadPeople(), admin ? loadTokens() : Promise.resolve([])]);
  return (
    <div className="space-y-8">
      <section className="space-y-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">People</h1>
          <p className="text-sm text-muted-foreground">
            Who may do what: a viewer {ROLE_TEXT.viewer}; an approver {ROLE_TEXT.approver}; an admin {ROLE_TEXT.admin}. You are{' '}
            <span data-testid="my-role">{operator.role}</span>. Every change is audited (<code>gnl operators history</code>).
          </p>
        </div>
        <table className="w-full text-sm" data-testid="people">
          <thead className="text-left text-muted-foreground">
            <tr>
              <th className="py-1">Login</th>
              <th>Name</th>
              <th>Role</th>
              <th>Added</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {people.map((person) => (
              <tr key={person.login} className="border-t align-top" data-testid="person" data-login={person.login}>
                <td className="py-2 font-mono text-xs">
                  <VisibleText text={person.login} />
                </td>
                <td>
                  <VisibleText text={person.name} />
                </td>
                <td>
                  <Badge variant="outline" data-slot="role">
                    {person.role}
                  </Badge>
                </td>
                <td>
                  <Time value={person.createdAt} /> by <VisibleText text={person.createdBy} />
                </td>
                <td>{person.disabled ? <span>disabled</span> : 'active'}</td>
                <td>
                  {!person.disabled && (admin || person.login === operator.login) ? (
                    <PersonActions login={person.login} role={person.role} canChangeRole={admin} self={person.login === operator.login} />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {admin ? (
        <section className="space-y-3">
          <div>
            <h2 className="text-lg font-semibold tracking-tight">API tokens</h2>
            <p className="text-sm text-muted-foreground">
              What services present to the HTTP API (docs/api.md): scoped ({PERMISSIONS.join(', ')}), optionally limited to agents, shown once, kept only as a
              hash. The journal names what a token did as <code>token:&lt;name&gt;</code>.
            </p>
          </div>
          <TokenCreateForm />
          {tokens.length === 0 ? (
            <p className="rounded-md border p-3 text-sm text-muted-foreground" data-testid="tokens-empty">
              No API tokens yet.
            </p>
          ) : (
            <table className="w-full text-sm" data-testid="tokens">
              <thead className="text-left text-muted-foreground">
                <tr>
                  <th className="py-1">Name</th>
                  <th>Prefix</th>
                  <th>Scopes</th>
                  <th>Agents</th>
                  <th>Made</th>
                  <th>Last used</th>
                  <th>State</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {tokens.map((token) => (
                  <tr key={token.name} className="border-t align-top" data-testid="token" data-name={token.name}>
                    <td className="py-2 font-mono text-xs">
                      <VisibleText text={token.name} />
                    </td>
                    <td className="font-mono text-xs">{token.prefix}…</td>
                    <td>{token.scopes.join(', ')}</td>
                    <td>{token.agents ? <VisibleText text={token.agents.join(', ')} /> : 'all'}</td>
                    <td>
                      <Time value={token.createdAt} /> by <VisibleText text={token.createdBy} />
                    </td>
                    <td>{token.lastUsedAt ? <Time value={token.lastUsedAt} /> : 'never'}</td>
                    <td data-slot="state">
                      {token.revoked ? (
                        <span>
                          revoked by <VisibleText text={token.revoked.by} />
                        </span>
                      ) : token.expiresAt && Date.parse(token.expiresAt) <= Date.now() ? (
                        'expired'
                      ) : (
                        'active'
                      )}
                    </td>
                    <td>{token.revoked ? null : <RevokeTokenButton name={token.name} />}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      ) : null}
    </div>
  );
}
