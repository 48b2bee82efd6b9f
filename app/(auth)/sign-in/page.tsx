import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { headers } from 'next/headers';
import { connection } from 'next/server';
import { SignInForm } from '@/components/auth/sign-in-form';
import { currentOperator } from '@/lib/studio/auth/session';
import { sessionCookieSecure } from '@/lib/studio/auth/session-cookie';
import { safeNextPath } from '@/lib/studio/auth/next-path';
import { needsFirstOperator } from '@/lib/studio/auth/sign-in';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const next = (await searchParams).next;
  const target = safeNextPath(next);
  if (await currentOperator()) redirect(target);
  const firstStart = await needsFirstOperator();
  // Plain http at a name other than loopback: the session cookie is Secure, so this browser would not keep it.
  const request = await headers();
  const proto = request.get('x-forwarded-proto');
  const host = request.get('x-forwarded-host') ?? request.get('host');
  const cookieLost = proto === 'http' && sessionCookieSecure({ proto, host: request.get('host'), forwardedHost: request.get('x-forwarded-host') });
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold tracking-tight">Sign in</h1>
      {firstStart ? (
        <p className="rounded-md border border-dashed p-3 text-sm text-muted-foreground" data-testid="no-operator-yet">
          No operator account exists yet. Open the setup link the Studio printed in its console when it started, or stop the Studio and run{' '}
          <code className="font-mono">npx gnl operators add &lt;login&gt; --name &quot;&lt;your name&gt;&quot;</code>.
        </p>
      ) : null}
      {cookieLost ? (
        <p className="rounded-md border border-dashed p-3 text-sm text-muted-foreground" data-testid="insecure-transport">
          This Studio is served over plain http at {host}: the session cookie is sent over https only, so signing in here will not last. Serve the Studio over
          https (or set <code className="font-mono">GNL_STUDIO_SECURE_COOKIE=0</code> on a network you trust).
        </p>
      ) : null}
      <SignInForm next={target} />
    </div>
  );
}
