'use client';

import { useActionState } from 'react';
import { type FormState, signInAction } from '@/app/(auth)/actions';
import { Alert, AlertDescription } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';

/** Login and password; works without JavaScript too (a plain form post to the server action). */
export function SignInForm({ next }: { next: string }) {
  const [state, action, pending] = useActionState<FormState, FormData>(signInAction, {});
  return (
    <form action={action} className="space-y-3" data-testid="sign-in-form">
      <input type="hidden" name="next" value={next} />
      <div className="space-y-1">
        <Label htmlFor="login">Login</Label>
        <Input id="login" name="login" autoComplete="username" required defaultValue={state.login} />
      </div>
      <div className="space-y-1">
        <Label htmlFor="password">Password</Label>
        <Input id="password" name="password" type="password" autoComplete="current-password" required />
      </div>
      {state.message ? (
        <Alert variant="destructive" data-testid="sign-in-error">
          <AlertDescription>{state.message}</AlertDescription>
        </Alert>
      ) : null}
      <Button type="submit" disabled={pending} className="w-full">
        Sign in
      </Button>
    </form>
  );
}
