import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { SetupForm } from '@/components/auth/setup-form';
import { needsFirstOperator, setupTokenValid } from '@/lib/studio/auth/sign-in';

export const metadata: Metadata = { title: 'First operator' };

export default async function SetupPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const token = (await searchParams).token;
  if (!(await needsFirstOperator())) {
    return (
      <p className="text-sm">
        The first operator exists already.{' '}
        <Link href="/sign-in" className="text-link hover:underline">
          Sign in
        </Link>
        .
      </p>
    );
  }
  if (typeof token !== 'string' || !setupTokenValid(token)) {
    return (
      <p className="text-sm">This setup link is not valid. Use the link the Studio printed in its console when it started (each start prints a new one).</p>
    );
  }
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold tracking-tight">Create the first operator</h1>
      <p className="text-sm text-muted-foreground">Operators sign in to see runs and decide for them; every decision records who made it.</p>
      <SetupForm token={token} />
    </div>
  );
}
