'use server';
/**
 * Signing in, creating the first account with the setup link, signing out. zod parse → one call into
 * lib/studio/auth/sign-in → redirect or a message. Passwords are never echoed back or logged.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { CLIENT_ADDRESS_HEADER } from '@/lib/studio/auth/client-address';
import { endSession } from '@/lib/studio/auth/session';
import { safeNextPath } from '@/lib/studio/auth/next-path';
import { createFirstOperator, signIn } from '@/lib/studio/auth/sign-in';

export type FormState = { message?: string; login?: string };

const signInSchema = z.object({ login: z.string().trim().min(1, 'Give your login.').max(254), password: z.string().min(1, 'Give your password.').max(1024) });

export async function signInAction(_state: FormState, form: FormData): Promise<FormState> {
  const parsed = signInSchema.safeParse({ login: form.get('login'), password: form.get('password') });
  if (!parsed.success) return { message: parsed.error.issues.map((i) => i.message).join(' '), login: String(form.get('login') ?? '') };
  // The client's address as the Studio's server wrote it (never a header the client chose): scripts/client-address.mjs.
  const address = (await headers()).get(CLIENT_ADDRESS_HEADER) ?? undefined;
  const result = await signIn({ ...parsed.data, address });
  if (!result.ok) return { message: result.message, login: parsed.data.login };
  redirect(safeNextPath(form.get('next')));
}

const setupSchema = z.object({
  token: z.string().min(1).max(200),
  login: z.string().max(254),
  name: z.string().max(100),
  password: z.string().max(1024),
});

export async function setupAction(_state: FormState, form: FormData): Promise<FormState> {
  const parsed = setupSchema.safeParse({ token: form.get('token'), login: form.get('login'), name: form.get('name'), password: form.get('password') });
  if (!parsed.success) return { message: 'Fill in every field.' };
  const result = await createFirstOperator(parsed.data);
  if (!result.ok) return { message: result.message, login: parsed.data.login };
  redirect('/');
}

export async function signOutAction(): Promise<void> {
  await endSession();
  redirect('/sign-in');
}
