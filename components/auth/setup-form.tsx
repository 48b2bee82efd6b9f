'use client';

import { useActionState } from 'react';
import { type FormState, setupAction } from '@/app/(auth)/actions';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';

/** The first operator account, created with the one-time setup link the Studio printed at start. */
export function SetupForm({ token }: { token: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(setupAction, {});
  return (
    <form action={action} className="space-y-3" data-testid="setup-form">
      <input type="hidden" name="token" value={token} />
      <div className="space-y-1">
        <Label htmlFor="login">Login (letters, digits, . _ + @ -)</Label>
        <Input id="login" name="login" autoComplete="username" required defaultValue={state.login} />
      </div>
      <div className="space-y-1">
        <Label htmlFor="name">Your name (shown beside your decisions)</Label>
        <Input id="name" name="name" autoComplete="name" required />
      </div>
      <div className="space-y-1">
        <Label htmlFor="password">Password (at least 12 characters)</Label>
        <Input id="password" name="password" type="password" autoComplete="new-password" minLength={12} required />
      </div>
      {state.message ? (
        <Alert variant="destructive">
          <AlertDescription>{state.message}</AlertDescription>
        </Alert>
      ) : null}
      <Button type="submit" disabled={pending} className="w-full">
        Create the account and sign in
      </Button>
    </form>
  );
}
