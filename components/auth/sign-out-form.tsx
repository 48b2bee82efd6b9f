'use client';

import type { ReactNode } from 'react';
import { markSigningOut } from '@/components/live/signing-out';

/** The header's sign-out form: the server action ends the session and redirects; the live streams stand aside meanwhile. */
export function SignOutForm({ action, className, children }: { action: () => Promise<void>; className?: string; children: ReactNode }) {
  return (
    <form action={action} onSubmit={markSigningOut} className={className}>
      {children}
    </form>
  );
}
