'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { addWebhookAction, removeWebhookAction, rotateWebhookKeyAction, sendTestWebhookAction, setWebhookEnabledAction } from '@/app/(studio)/actions';
import { newRequestId } from '@/components/request-id';
import { ActionFailure } from '@/components/inbox/action-feedback';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CopyButton } from '@/components/ui/copy-button';
import { Input, Label } from '@/components/ui/input';
import { useHydrated } from '@/components/ui/use-hydrated';
import { VisibleText } from '@/components/ui/visible-text';

/** A signing key, shown the one time it exists in clear outside the journal. */
function KeyOnce({ secret, title }: { secret: string; title: string }) {
  return (
    <Alert data-testid="webhook-key">
      <AlertTitle>{title}</AlertTitle>
      <AlertDescription className="flex items-center gap-2">
        <code className="break-all font-mono text-xs" data-testid="webhook-key-value">
          {secret}
        </code>
        <CopyButton value={secret} label="Copy the key" />
      </AlertDescription>
    </Alert>
  );
}

/** Adds a webhook: a label, its address and its body's format; the signing key is shown once. */
export function WebhookAddForm() {
  const router = useRouter();
  const hydrated = useHydrated();
  const [label, setLabel] = useState('');
  const [url, setUrl] = useState('');
  const [format, setFormat] = useState<'json' | 'slack'>('json');
  const labelId = useId();
  const urlId = useId();
  const add = useMutation({
    mutationFn: () => addWebhookAction({ label, url, format }),
    onSuccess: (result) => {
      if (result.ok) {
        setLabel('');
        setUrl('');
        router.refresh();
      }
    },
  });
  return (
    <div className="space-y-3 rounded-md border p-3" data-testid="webhook-add">
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <div className="space-y-1">
          <Label htmlFor={labelId}>Label</Label>
          <Input
            id={labelId}
            className="h-8 w-48"
            value={label}
            onChange={(e) => setLabel(e.target.value)}
            placeholder="On-call channel"
            data-testid="webhook-label"
          />
        </div>
        <div className="min-w-0 flex-1 space-y-1">
          <Label htmlFor={urlId}>Address (kept sealed; only its origin is shown)</Label>
          <Input
            id={urlId}
            className="h-8 w-full"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://ops.example.com/hooks/gnl"
            data-testid="webhook-url"
          />
        </div>
        <fieldset className="flex gap-3 text-sm">
          <legend className="sr-only">Body</legend>
          {(['json', 'slack'] as const).map((f) => (
            <label key={f} className="flex items-center gap-1">
              <input type="radio" name="webhook-format" checked={format === f} onChange={() => setFormat(f)} data-testid={`webhook-format-${f}`} />
              {f === 'json' ? 'GNL JSON (signed)' : 'Slack incoming webhook'}
            </label>
          ))}
        </fieldset>
        <Button type="submit" size="sm" disabled={!hydrated || add.isPending} data-testid="webhook-submit">
          Add the webhook
        </Button>
      </form>
      {add.data?.ok ? <KeyOnce secret={add.data.secret} title="Its signing key: copy it into the receiver now, it is shown this once" /> : null}
      <ActionFailure data={add.data} error={add.error} />
    </div>
  );
}

type Asking = 'rotate' | 'pause' | 'remove' | undefined;

/** A webhook's actions: send a test, rotate its key, pause or resume it, remove it (each change with a reason). */
export function WebhookRowActions({ id, label, enabled }: { id: string; label: string; enabled: boolean }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const [asking, setAsking] = useState<Asking>(undefined);
  const [reason, setReason] = useState('');
  const [overlap, setOverlap] = useState('24');
  const refreshOnSuccess = {
    onSuccess: (result: { ok: boolean }) => {
      if (!result.ok) return;
      setAsking(undefined);
      setReason('');
      router.refresh();
    },
  };
  const overlapId = useId();
  const test = useMutation({ mutationFn: () => sendTestWebhookAction({ id }), onSuccess: () => router.refresh() });
  // One per opening of the rotation form: a submit retried there (its answer lost) gets the key it made, not a
  // second rotation; opening the form again is a new request.
  const [rotateRequestId, setRotateRequestId] = useState(newRequestId);
  const rotate = useMutation({
    mutationFn: () => rotateWebhookKeyAction({ id, overlapHours: Number(overlap), requestId: rotateRequestId }),
    ...refreshOnSuccess,
  });
  const toggle = useMutation({ mutationFn: () => setWebhookEnabledAction({ id, enabled: !enabled, reason }), ...refreshOnSuccess });
  const remove = useMutation({ mutationFn: () => removeWebhookAction({ id, reason }), ...refreshOnSuccess });
  const busy = !hydrated || test.isPending || rotate.isPending || toggle.isPending || remove.isPending;
  const tested = test.data;
  return (
    <div className="space-y-2" data-testid="webhook-actions">
      <div className="flex flex-wrap gap-2">
        <Button type="button" size="sm" variant="outline" disabled={busy} onClick={() => test.mutate()} data-testid="webhook-test">
          Send a test
        </Button>
        <Button
          type="button"
          size="sm"
          variant="ghost"
          disabled={busy}
          onClick={() => {
            setRotateRequestId(newRequestId());
            setAsking('rotate');
          }}
          data-testid="webhook-rotate"
        >
          Rotate the key…
        </Button>
        <Button type="button" size="sm" variant="ghost" disabled={busy} onClick={() => setAsking('pause')} data-testid="webhook-toggle">
          {enabled ? 'Pause…' : 'Resume…'}
        </Button>
        <Button type="button" size="sm" variant="ghost" disabled={busy} onClick={() => setAsking('remove')} data-testid="webhook-remove">
          Remove…
        </Button>
      </div>
      {asking === 'rotate' ? (
        <form
          className="flex flex-wrap items-end gap-2 text-sm"
          onSubmit={(e) => {
            e.preventDefault();
            rotate.mutate();
          }}
        >
          <Label htmlFor={overlapId}>The old key signs too for (hours; 0: it stops now)</Label>
          <Input
            id={overlapId}
            className="h-8 w-16"
            inputMode="numeric"
            value={overlap}
            onChange={(e) => setOverlap(e.target.value)}
            data-testid="webhook-overlap"
          />
          <Button type="submit" size="sm" disabled={busy} data-testid="webhook-rotate-confirm">
            Make a new key for <VisibleText text={label} />
          </Button>
          <Button type="button" size="sm" variant="ghost" onClick={() => setAsking(undefined)}>
            Keep it
          </Button>
        </form>
      ) : null}
      {asking === 'pause' || asking === 'remove' ? (
        <form
          className="flex flex-wrap gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            (asking === 'remove' ? remove : toggle).mutate();
          }}
        >
          <Input className="h-8 w-56" placeholder="Why (recorded)" value={reason} onChange={(e) => setReason(e.target.value)} data-testid="webhook-reason" />
          <Button type="submit" size="sm" variant="default" disabled={busy} data-testid="webhook-confirm">
            {asking === 'remove' ? 'Remove it' : enabled ? 'Pause it' : 'Resume it'}
          </Button>
          <Button type="button" size="sm" variant="ghost" onClick={() => setAsking(undefined)}>
            Cancel
          </Button>
        </form>
      ) : null}
      {rotate.data?.ok ? (
        <KeyOnce
          secret={rotate.data.secret}
          title={
            rotate.data.previousUntil
              ? `The new key, shown this once; the old one signs too until ${new Date(rotate.data.previousUntil).toLocaleString()}`
              : 'The new key, shown this once; the old one no longer signs'
          }
        />
      ) : null}
      {tested?.ok ? (
        <p className={`text-xs ${tested.delivered ? 'text-muted-foreground' : 'text-destructive'}`} data-testid="webhook-test-result">
          {tested.delivered
            ? `Delivered: HTTP ${tested.httpStatus} in ${tested.ms} ms`
            : `Not delivered: ${tested.error ?? `HTTP ${tested.httpStatus}`} (${tested.ms} ms)`}{' '}
          · test id <code className="font-mono">{tested.eventId}</code>
        </p>
      ) : null}
      <ActionFailure data={test.data} error={test.error} />
      <ActionFailure data={rotate.data} error={rotate.error} />
      <ActionFailure data={toggle.data} error={toggle.error} />
      <ActionFailure data={remove.data} error={remove.error} />
    </div>
  );
}
