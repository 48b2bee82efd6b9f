/** Small pieces the timeline's event bodies share. */
import { Badge } from '@/components/ui/badge';
import { CopyButton } from '@/components/ui/copy-button';
import { formatMs } from '@/components/runs/run-totals';
import { Time } from '@/components/ui/time';
import { cn } from '@/lib/utils';
import { VisibleText } from '@/components/ui/visible-text';

export function SeqLink({ seq, className, children, ...props }: React.ComponentProps<'a'> & { seq: number }) {
  return (
    <a href={`#seq-${seq}`} data-slot="seq-link" className={cn('text-link hover:underline', className)} {...props}>
      {children ?? `#${seq}`}
    </a>
  );
}

/** A string title is shown through VisibleText (titles name who decided, which is untrusted text). */
export function EventHeader({ title, at, children }: { title: React.ReactNode; at: string; children?: React.ReactNode }) {
  return (
    <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
      <span className="text-sm font-medium">{typeof title === 'string' ? <VisibleText text={title} /> : title}</span>
      {children}
      <Time value={at} className="ml-auto text-xs text-muted-foreground" />
    </div>
  );
}

export function Chip({ className, ...props }: React.ComponentProps<typeof Badge>) {
  return <Badge variant="outline" className={cn('font-normal text-muted-foreground', className)} {...props} />;
}

export function IdempotencyKey({ value }: { value: string }) {
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs" data-slot="idempotency-key">
      <span className="text-muted-foreground">Idempotency key</span>
      <code className="font-mono wrap-anywhere">
        <VisibleText text={value} />
      </code>
      <CopyButton value={value} label="Copy key" aria-label={`Copy idempotency key ${value}`} />
    </div>
  );
}

/** Who decided, and why: an operator's words are shown as text, never as markup, hidden characters marked. */
export function Reason({ reason }: { reason: string | undefined }) {
  if (!reason) return null;
  return (
    <p className="text-sm whitespace-pre-wrap wrap-break-word">
      “<VisibleText text={reason} />”
    </p>
  );
}

export function Note({ className, ...props }: React.ComponentProps<'p'>) {
  return <p className={cn('text-xs text-muted-foreground', className)} {...props} />;
}

/** A duration for a chip: undefined when the journal has none. */
export function formatDuration(ms: number | undefined): string | undefined {
  return ms === undefined || !Number.isFinite(ms) ? undefined : formatMs(ms);
}
