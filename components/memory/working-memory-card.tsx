'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { editWorkingMemoryAction } from '@/app/(studio)/actions';
import { ActionFailure, RefusalNote } from '@/components/inbox/action-feedback';
import { RunIdLink } from '@/components/memory/run-id-link';
import { JsonPayload, prettyJson } from '@/components/runs/json-payload';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { WorkingMemory } from '@/lib/durable';
import type { Refusal } from '@/lib/studio/actions/operator-actions';

/** What the card shows of a version: the core's record without its resource (the page's). */
export type WorkingMemoryShown = Omit<WorkingMemory, 'resource'>;

/**
 * A resource's working memory: the version an agent reads now, who wrote it and why, and an edit in the
 * signed-in operator's name with a required reason, written as the next version (a version written
 * meanwhile is refused and said, never overwritten). The page is read again after a save.
 */
export function WorkingMemoryCard({ resource, current }: { resource: string; current: WorkingMemoryShown | undefined }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(() => prettyJson(current?.value ?? {}));
  const [reason, setReason] = useState('');
  // One request id per opened form: a second click of the same form is the same write.
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const save = useMutation({
    mutationFn: () => editWorkingMemoryAction({ resource, expectedVersion: current?.version ?? 0, value: text, reason, requestId }),
    onSuccess: (result) => {
      if (result.ok) window.location.reload();
    },
  });
  const refusal = save.data && !save.data.ok ? save.data : undefined;
  return (
    <section className="space-y-2 rounded-lg border p-4" data-testid="working-memory">
      <div className="flex items-start justify-between gap-2">
        <div>
          <h2 className="font-medium">Working memory</h2>
          {current ? (
            <p className="text-xs text-muted-foreground" data-testid="working-memory-version">
              Version {current.version}, written by <VisibleText text={current.updatedBy} />
              {current.runId ? (
                <>
                  {' in '}
                  <RunIdLink runId={current.runId} />
                </>
              ) : null}{' '}
              <Time value={current.at} />
              {current.reason ? (
                <>
                  {' · why: '}
                  <VisibleText text={current.reason} />
                </>
              ) : null}
            </p>
          ) : (
            <p className="text-xs text-muted-foreground">None yet: no agent or operator wrote one.</p>
          )}
        </div>
        {editing ? null : (
          <Button
            type="button"
            size="sm"
            variant="outline"
            onClick={() => {
              setRequestId(crypto.randomUUID());
              setEditing(true);
            }}
          >
            Edit…
          </Button>
        )}
      </div>
      {editing ? (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <Label htmlFor="working-memory-value">The record, as a JSON object (the agent reads it as it is)</Label>
          <Textarea id="working-memory-value" rows={10} className="font-mono text-xs" value={text} onChange={(e) => setText(e.target.value)} />
          <Label htmlFor="working-memory-reason">Why change it? (recorded with the version, and in the audit)</Label>
          <Textarea id="working-memory-reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={save.isPending || reason.trim() === ''}>
              Save as version {(current?.version ?? 0) + 1}
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setEditing(false)}>
              Back
            </Button>
          </div>
          {refusal ? (
            refusal.kind === 'changed' ? (
              <p role="alert" className="text-sm text-amber-700 dark:text-amber-400" data-testid="working-memory-changed">
                {refusal.message}
              </p>
            ) : (
              <RefusalNote refusal={refusal as Refusal} />
            )
          ) : (
            <ActionFailure data={undefined} error={save.error} />
          )}
        </form>
      ) : current ? (
        <JsonPayload value={current.value} data-testid="working-memory-value" />
      ) : null}
    </section>
  );
}
