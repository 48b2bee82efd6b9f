'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { migrateRunAction } from '@/app/(studio)/actions';
import { ActionFailure } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { runHref } from '@/lib/studio/reads/run-path';

/** Confirms a previewed migration with a reason (recorded); an unsafe one needs the override ticked too. */
export function MigrateForm({ runId, to, safe }: { runId: string; to: string; safe: boolean }) {
  const [reason, setReason] = useState('');
  const [force, setForce] = useState(false);
  const migrate = useMutation({ mutationFn: () => migrateRunAction({ runId, to, reason, force }) });
  const result = migrate.data;
  if (result?.ok) {
    return (
      <p className="text-sm" data-testid="migrate-done">
        Migrated to version <code className="font-mono">{result.to}</code> (event #{result.seq}).{' '}
        <Link href={runHref(runId)} className="text-link hover:underline">
          Open the run
        </Link>
      </p>
    );
  }
  return (
    <form
      className="max-w-xl space-y-2"
      data-testid="migrate-form"
      onSubmit={(e) => {
        e.preventDefault();
        migrate.mutate();
      }}
    >
      <Label htmlFor="migrate-reason">Why migrate? (recorded with your name in the run's journal)</Label>
      <Textarea id="migrate-reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      {safe ? null : (
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} data-testid="migrate-force" />
          Override the refusals above (they are recorded as overridden)
        </label>
      )}
      <Button type="submit" size="sm" disabled={migrate.isPending || (!safe && !force)}>
        Migrate the run
      </Button>
      {result && !result.ok ? (
        <p className="text-sm text-red-700 dark:text-red-400" role="alert" data-testid="migrate-refused">
          {result.message}
        </p>
      ) : null}
      <ActionFailure data={undefined} error={migrate.error} />
    </form>
  );
}
