'use client';

import { useEffect, useState } from 'react';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';

type JournalInfo = { kind: 'pglite'; dataDir: string | undefined; durabilityNote: string } | { kind: 'postgres' };

/** Where the browser remembers that the warning about this data folder was read. */
const readKey = (dataDir: string | undefined) => `gnl.journal-notice-read:${dataDir ?? 'memory'}`;

/**
 * What the operator must know about the journal this Studio reads. Only the embedded journal needs a
 * warning; once read ("Understood", remembered by this browser for this data folder) it collapses to a
 * badge that opens it again.
 */
export function JournalNotice({ journal, ...props }: React.ComponentProps<typeof Alert> & { journal: JournalInfo }) {
  const dataDir = journal.kind === 'pglite' ? journal.dataDir : undefined;
  const [read, setRead] = useState(false);
  useEffect(() => {
    setRead(window.localStorage.getItem(readKey(dataDir)) === '1');
  }, [dataDir]);
  if (journal.kind !== 'pglite') return null;
  const title = `Embedded journal${journal.dataDir ? ` at ${journal.dataDir}` : ' (in memory)'}`;
  if (read) {
    return (
      <button
        type="button"
        data-testid="journal-notice"
        data-collapsed=""
        title={journal.durabilityNote}
        onClick={() => {
          window.localStorage.removeItem(readKey(dataDir));
          setRead(false);
        }}
        className="inline-flex items-center gap-1.5 rounded-md border border-amber-500/40 bg-amber-500/10 px-2 py-0.5 text-xs font-medium text-amber-800 dark:text-amber-300"
      >
        Embedded journal: not for production
      </button>
    );
  }
  return (
    <Alert variant="warning" data-testid="journal-notice" {...props}>
      <AlertTitle>{title}</AlertTitle>
      <AlertDescription>
        {journal.durabilityNote}{' '}
        <Button
          type="button"
          variant="outline"
          size="sm"
          className="mt-2 h-7"
          onClick={() => {
            window.localStorage.setItem(readKey(dataDir), '1');
            setRead(true);
          }}
        >
          Understood: show it as a badge
        </Button>
      </AlertDescription>
    </Alert>
  );
}
