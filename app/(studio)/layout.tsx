import Link from 'next/link';
import { signOutAction } from '@/app/(auth)/actions';
import { SignOutForm } from '@/components/auth/sign-out-form';
import { InboxCountLink } from '@/components/inbox/inbox-count-link';
import { RunsLive } from '@/components/live/runs-live';
import { JournalNotice } from '@/components/runs/journal-notice';
import { Button } from '@/components/ui/button';
import { VisibleText } from '@/components/ui/visible-text';
import { inboxCount } from '@/lib/studio/reads/inbox-count';
import { journalInfo } from '@/lib/studio/reads/runs';
import { requireOperator } from '@/lib/studio/auth/session';

export default async function StudioLayout({ children }: { children: React.ReactNode }) {
  const operator = await requireOperator();
  const waiting = await inboxCount();
  return (
    <div className="min-h-dvh">
      <header className="border-b">
        <div className="mx-auto flex h-14 max-w-7xl items-center gap-6 px-4 sm:px-6">
          <Link href="/" className="font-semibold tracking-tight">
            GNL Studio
          </Link>
          <nav className="flex gap-4 text-sm text-muted-foreground">
            <Link href="/" className="hover:text-foreground">
              Runs
            </Link>
            <InboxCountLink initial={waiting} />
            <Link href="/overview" className="hover:text-foreground">
              Overview
            </Link>
            <Link href="/chat" className="hover:text-foreground">
              Chat
            </Link>
            <Link href="/memory" className="hover:text-foreground">
              Memory
            </Link>
            <Link href="/schedules" className="hover:text-foreground">
              Schedules
            </Link>
            <Link href="/versions" className="hover:text-foreground">
              Versions
            </Link>
            <Link href="/demo" className="hover:text-foreground">
              Demo
            </Link>
            <Link href="/webhooks" className="hover:text-foreground">
              Webhooks
            </Link>
            <Link href="/people" className="hover:text-foreground">
              People
            </Link>
          </nav>
          <SignOutForm action={signOutAction} className="ml-auto flex items-center gap-3 text-sm">
            <span className="text-muted-foreground" data-testid="signed-in-as">
              <VisibleText text={operator.name} />{' '}
              <span className="font-mono text-xs">
                (<VisibleText text={operator.login} />)
              </span>
            </span>
            <Button type="submit" variant="ghost" size="sm">
              Sign out
            </Button>
          </SignOutForm>
        </div>
      </header>
      <main className="mx-auto max-w-7xl space-y-6 px-4 py-6 sm:px-6">
        <JournalNotice journal={journalInfo()} />
        <RunsLive>{children}</RunsLive>
      </main>
    </div>
  );
}
