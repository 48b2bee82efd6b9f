'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { createTokenAction, revokeTokenAction, setRoleAction, signOutEverywhereAction } from '@/app/(studio)/actions';
import { ActionFailure } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Input, Label } from '@/components/ui/input';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';

const ROLES = ['viewer', 'approver', 'admin'] as const;
const SCOPES = ['read', 'start', 'decide', 'events', 'admin'] as const;

/** A person's row: their role (admins change it, with a reason) and "Sign out everywhere" (themselves, or an admin for them). */
export function PersonActions({ login, role, canChangeRole, self }: { login: string; role: string; canChangeRole: boolean; self: boolean }) {
  const router = useRouter();
  const [next, setNext] = useState(role);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const roleChange = useMutation({
    mutationFn: () => setRoleAction({ login, role: next as (typeof ROLES)[number], reason }),
    onSuccess: (result) => {
      if (result.ok) {
        setReason('');
        router.refresh();
      }
    },
  });
  const signOut = useMutation({
    mutationFn: () => signOutEverywhereAction({ login }),
    onSuccess: (result) => {
      if (result.ok && self) router.push('/sign-in');
      else router.refresh();
    },
  });
  return (
    <div className="space-y-2" data-testid="person-actions">
      {canChangeRole ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            roleChange.mutate();
          }}
        >
          <select
            aria-label={`Role of ${login}`}
            className="h-8 rounded-md border bg-background px-2 text-sm"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            data-testid="role-select"
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
          <Label htmlFor={reasonId} className="sr-only">
            Why (recorded)
          </Label>
          <Input
            id={reasonId}
            className="h-8 w-48"
            placeholder="Why (recorded)"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            data-testid="role-reason"
          />
          <Button type="submit" size="sm" variant="outline" disabled={next === role || roleChange.isPending} data-testid="role-submit">
            Change role
          </Button>
        </form>
      ) : null}
      <Button type="button" size="sm" variant="ghost" disabled={signOut.isPending} onClick={() => signOut.mutate()} data-testid="sign-out-everywhere">
        {self ? 'Sign me out everywhere' : 'Sign out everywhere'}
      </Button>
      {signOut.data?.ok && !self ? <p className="text-xs text-muted-foreground">Ended {signOut.data.sessions} session(s).</p> : null}
      <ActionFailure data={roleChange.data} error={roleChange.error} />
      <ActionFailure data={signOut.data} error={signOut.error} />
    </div>
  );
}

/** Makes an API token: its name, scopes, agents and lifetime; the token is shown once, with a copy button. */
export function TokenCreateForm() {
  const router = useRouter();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['read']);
  const [agents, setAgents] = useState('');
  const [days, setDays] = useState('');
  const nameId = useId();
  const agentsId = useId();
  const daysId = useId();
  const create = useMutation({
    mutationFn: () =>
      createTokenAction({
        name,
        scopes: scopes as (typeof SCOPES)[number][],
        ...(agents.trim()
          ? {
              agents: agents
                .split(',')
                .map((a) => a.trim())
                .filter(Boolean),
            }
          : {}),
        ...(days.trim() ? { expiresInDays: Number(days) } : {}),
      }),
    onSuccess: (result) => {
      if (result.ok) {
        setName('');
        router.refresh();
      }
    },
  });
  const made = create.data?.ok ? create.data.token : undefined;
  return (
    <div className="space-y-3 rounded-md border p-3" data-testid="token-create">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <div className="space-y-1">
          <Label htmlFor={nameId}>Name</Label>
          <Input id={nameId} className="h-8 w-48" value={name} onChange={(e) => setName(e.target.value)} data-testid="token-name" />
        </div>
        <fieldset className="flex gap-2 text-sm">
          <legend className="sr-only">Scopes</legend>
          {SCOPES.map((scope) => (
            <label key={scope} className="flex items-center gap-1">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
                data-testid={`token-scope-${scope}`}
              />
              {scope}
            </label>
          ))}
        </fieldset>
        <div className="space-y-1">
          <Label htmlFor={agentsId}>Only these agents (comma-separated; empty: all)</Label>
          <Input id={agentsId} className="h-8 w-56" value={agents} onChange={(e) => setAgents(e.target.value)} />
        </div>
        <div className="space-y-1">
          <Label htmlFor={daysId}>Expires in days (empty: never)</Label>
          <Input id={daysId} className="h-8 w-24" inputMode="numeric" value={days} onChange={(e) => setDays(e.target.value)} />
        </div>
        <Button type="submit" size="sm" disabled={create.isPending} data-testid="token-submit">
          Make the token
        </Button>
      </form>
      {made ? (
        <Alert data-testid="token-made">
          <AlertTitle>Copy it now: it is shown this once</AlertTitle>
          <AlertDescription className="flex items-center gap-2">
            <code className="break-all font-mono text-xs" data-testid="token-value">
              {made}
            </code>
            <CopyButton value={made} label="Copy the token" />
          </AlertDescription>
        </Alert>
      ) : null}
      <ActionFailure data={create.data} error={create.error} />
    </div>
  );
}

/** Revokes a token, with a reason (recorded): refused from its next request on. */
export function RevokeTokenButton({ name }: { name: string }) {
  const router = useRouter();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const revoke = useMutation({
    mutationFn: () => revokeTokenAction({ name, reason }),
    onSuccess: (result) => {
      if (result.ok) router.refresh();
    },
  });
  if (!asking)
    return (
      <Button type="button" size="sm" variant="ghost" onClick={() => setAsking(true)} data-testid="token-revoke">
        Revoke…
      </Button>
    );
  return (
    <form
      className="flex gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        revoke.mutate();
      }}
    >
      <Input className="h-8 w-40" placeholder="Why (recorded)" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="token-revoke-reason" />
      <Button type="submit" size="sm" variant="outline" disabled={revoke.isPending} data-testid="token-revoke-submit">
        Revoke
      </Button>
      <ActionFailure data={revoke.data} error={revoke.error} />
    </form>
  );
}
