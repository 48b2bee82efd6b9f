'use server';
/**
 * Signing in, creating the first account with the setup link, signing out. zod parse → one call into
 * lib/studio/auth/sign-in → redirect or a message. Passwords are never echoed back or logged.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { stampedClientAddress } from '@/lib/studio/auth/client-address';
import { endSession } from '@/lib/studio/auth/session';
import { safeNextPath } from '@/lib/studio/auth/next-path';
import { createFirstOperator, signIn } from '@/lib/studio/auth/sign-in';

export type FormState = { message?: string; login?: string };

const signInSchema = z.object({ login: z.string().trim().min(1, 'Give your login.').max(254), password: z.string().min(1, 'Give your password.').max(1024) });

export async function signInAction(_state: FormState, form: FormData): Promise<FormState> {
  const parsed = signInSchema.safeParse({ login: form.get('login'), password: form.get('password') });
  if (!parsed.success) return { message: parsed.error.issues.map((i) => i.message).join(' '), login: String(form.get('login') ?? '') };
  // The client's address as the Studio's server wrote it (never a header the client chose): scripts/client-address.mjs;
  // none under a bare `next start`, where nothing stamps it.
  const address = stampedClientAddress(await headers());
  const result = await signIn({ ...parsed.data, address });
  if (!result.ok) return { message: result.message, login: parsed.data.login };
  redirect(safeNextPath(form.get('next')));
}

// Each field says its own limit: a name or a password over it is not a field left empty.
const setupSchema = z.object({
  token: z
    .string('Open the setup link again: it carries a token.')
    .min(1, 'Open the setup link again: it carries a token.')
    .max(200, 'The setup token is at most 200 characters: open the link again.'),
  login: z.string('Give a login.').max(254, 'A login is at most 254 characters.'),
  name: z.string('Give your name.').max(100, 'A name is at most 100 characters.'),
  password: z.string('Give a password.').max(1024, 'A password is at most 1,024 characters.'),
});

export async function setupAction(_state: FormState, form: FormData): Promise<FormState> {
  const parsed = setupSchema.safeParse({ token: form.get('token'), login: form.get('login'), name: form.get('name'), password: form.get('password') });
  if (!parsed.success) return { message: parsed.error.issues.map((i) => i.message).join(' '), login: String(form.get('login') ?? '') };
  const result = await createFirstOperator(parsed.data);
  if (!result.ok) return { message: result.message, login: parsed.data.login };
  redirect('/');
}

export async function signOutAction(): Promise<void> {
  await endSession();
  redirect('/sign-in');
}
