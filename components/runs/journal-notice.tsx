import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';

/** What the operator must know about the journal this Studio reads. Only the embedded journal needs a warning. */
export function JournalNotice({
  journal,
  ...props
}: React.ComponentProps<typeof Alert> & { journal: { kind: 'pglite'; dataDir: string | undefined; durabilityNote: string } | { kind: 'postgres' } }) {
  if (journal.kind !== 'pglite') return null;
  return (
    <Alert variant="warning" data-testid="journal-notice" {...props}>
      <AlertTitle>Embedded journal{journal.dataDir ? ` at ${journal.dataDir}` : ' (in memory)'}</AlertTitle>
      <AlertDescription>{journal.durabilityNote}</AlertDescription>
    </Alert>
  );
}
