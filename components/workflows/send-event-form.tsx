'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { sendEventAction } from '@/app/(studio)/actions';
import { RefusalNote } from '@/components/inbox/action-feedback';
import { SchemaForm } from '@/components/inbox/schema-form';
import { useSchemaForm } from '@/components/inbox/use-schema-form';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';
import { VisibleText } from '@/components/ui/visible-text';
import type { FormProblem } from '@/lib/studio/forms/schema-fields';

/**
 * Sends the event a waiting workflow run waits for: a form from the payload schema the workflow declares
 * (one JSON field without one), checked in the browser for its shape and on the server by the schema
 * itself. An event id is optional: the same id sent twice is recorded once, and without one the form sends
an id of its own, so a send retried after a lost answer is recorded once too. The journal records the
 * signed-in operator as the sender; the run is woken and the page shows it going on.
 */
export function SendEventForm({ runId, event, schema }: { runId: string; event: string; schema: unknown }) {
  const router = useRouter();
  const form = useSchemaForm(schema, undefined);
  const [eventId, setEventId] = useState('');
  // The id sent when the operator gives none: one per event, so a retried send after a lost answer (or a second
  // click) is the same event, recorded once; a new one once this one is recorded.
  const [ownId, setOwnId] = useState(() => `studio-${crypto.randomUUID()}`);
  const [formProblems, setFormProblems] = useState<FormProblem[]>([]);
  const send = useMutation({
    mutationFn: (payload: unknown) => sendEventAction({ runId, name: event, payload: JSON.stringify(payload ?? null), eventId: eventId.trim() || ownId }),
    onSuccess: (result) => {
      if (!result.ok) return;
      setOwnId(`studio-${crypto.randomUUID()}`);
      router.refresh();
    },
  });
  const result = send.data;
  const id = (what: string) => `${what}-${event}`;
  return (
    <form
      className="space-y-2"
      data-testid="send-event-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const read = form.read();
        setFormProblems(read.problems);
        if (read.problems.length === 0) send.mutate(read.value);
      }}
    >
      <SchemaForm
        field={form.field}
        state={form.state}
        onChange={form.setState}
        problems={formProblems}
        idPrefix={id('payload')}
        rootLabel={`The payload of “${event}” (JSON)`}
      />
      <Label htmlFor={id('event-id')}>Event id (optional: the same id sent twice is recorded once)</Label>
      <Input id={id('event-id')} value={eventId} onChange={(e) => setEventId(e.target.value)} maxLength={200} />
      <Button type="submit" size="sm" disabled={send.isPending}>
        Send “<VisibleText text={event} />”
      </Button>
      {result?.ok ? (
        <p className="text-xs text-muted-foreground" data-testid="send-event-result" role="status">
          {result.recorded ? 'Recorded in the run’s journal; the run is woken.' : 'An event with this id was recorded already: nothing new was written.'}
        </p>
      ) : null}
      {result && !result.ok ? <RefusalNote refusal={result} /> : null}
      {send.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: send.error.message }} /> : null}
    </form>
  );
}
