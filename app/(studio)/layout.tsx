import Link from 'next/link';
import { JournalNotice } from '@/components/runs/journal-notice';
import { journalInfo } from '@/lib/studio/runs';

export default function StudioLayout({ children }: { children: React.ReactNode }) {
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
          </nav>
        </div>
      </header>
      <main className="mx-auto max-w-7xl space-y-6 px-4 py-6 sm:px-6">
        <JournalNotice journal={journalInfo()} />
        {children}
      </main>
    </div>
  );
}
