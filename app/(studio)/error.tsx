'use client';

import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';

/** Shown when reading the journal fails. The server's message stays in its log; the digest links the two. */
export default function StudioError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <Alert variant="destructive" className="space-y-3">
      <AlertTitle>The journal could not be read</AlertTitle>
      <AlertDescription>
        <p>
          Check the Studio&apos;s server log{error.digest ? ` for digest ${error.digest}` : ''}. With the embedded journal, only one process may open its data
          folder at a time; with DATABASE_URL, the Postgres server must be reachable.
        </p>
      </AlertDescription>
      <Button variant="outline" size="sm" onClick={reset}>
        Try again
      </Button>
    </Alert>
  );
}
