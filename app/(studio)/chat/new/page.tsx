import { randomUUID } from 'node:crypto';
import { connection } from 'next/server';
import { redirect } from 'next/navigation';
import { requireOperator } from '@/lib/studio/auth/session';

/** A new conversation: only an id (nothing is written until the first message). */
export default async function NewChatPage() {
  await connection();
  await requireOperator();
  redirect(`/chat/${randomUUID()}`);
}
