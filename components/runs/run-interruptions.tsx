import { VisibleText } from '@/components/ui/visible-text';
import type { Invocation } from '@/lib/durable/projection';
import type { RunExecutorInfo } from '@/lib/studio/reads/run-executor';
import { cn } from '@/lib/utils';
import { formatMs } from './run-totals';

const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false, timeZone: 'UTC' });

function At({ ms }: { ms: number }) {
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso} title={iso} className="tabular-nums">
      {clock.format(ms)}
    </time>
  );
}

const WAITED_FOR = {
  'waiting-approval': 'an approval',
  'waiting-tool-result': 'a tool result',
  blocked: 'a person to settle a side effect',
  waiting: 'a time, an event or child runs',
} as const;

/**
 * What stopped the run between its invocations, as sentences: an interruption (the invocation stopped
 * without an end), a failure and its retry, a wait for people. From the journal's invocations
 * (run-invocations.ts); the executor that resumed it is named only where the run queue still knows it
 * (the last claim).
 */
export function RunInterruptions({
  invocations,
  executor,
  className,
  ...props
}: React.ComponentProps<'section'> & { invocations: readonly Invocation[]; executor: RunExecutorInfo | null }) {
  const items = invocations.flatMap((next, i) => {
    const before = invocations[i - 1];
    const end = before?.end;
    if (!before || !end || end.how === 'completed' || end.how === 'canceled') return [];
    const last = i === invocations.length - 1;
    const claimed = executor?.claimedAt ? Date.parse(executor.claimedAt) : Number.NaN;
    const by = last && executor?.lastOwner && claimed >= end.at ? executor.lastOwner : undefined;
    const after = formatMs(next.at - end.at);
    return [{ key: next.seq, kind: end.how, text: <Sentence before={before} next={next} by={by} after={after} /> }];
  });
  if (items.length === 0) return null;
  return (
    <section data-testid="run-interruptions" className={cn('space-y-2 rounded-lg border p-4', className)} {...props}>
      <h2 className="text-sm font-semibold">Between invocations</h2>
      <ol className="space-y-1.5 text-sm">
        {items.map((item) => (
          <li key={item.key} data-testid="run-interruption" data-kind={item.kind}>
            {item.text}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Sentence({ before, next, by, after }: { before: Invocation; next: Invocation; by: string | undefined; after: string }) {
  const end = before.end;
  const resumed = (
    <>
      resumed{by ? ' by ' : ''}
      {by ? (
        <span className="font-mono">
          <VisibleText text={by} />
        </span>
      ) : null}{' '}
      at <At ms={next.at} /> ({after} later, <a href={`#seq-${next.seq}`}>#{next.seq}</a>).
    </>
  );
  if (end?.how === 'interrupted') {
    return (
      <>
        <strong className="font-medium">Interrupted:</strong> the executor stopped at <At ms={end.at} /> after <a href={`#seq-${end.seq}`}>#{end.seq}</a>{' '}
        without finishing the invocation (its process ended or its lease lapsed); {resumed}
      </>
    );
  }
  if (end?.how === 'failed') {
    return (
      <>
        <strong className="font-medium">Failed</strong> at <At ms={end.at} />: <VisibleText text={`${end.error.name}: ${end.error.message}`} />;{' '}
        {next.retry ? `retried automatically (attempt ${next.retry.attempt} of ${next.retry.attempts}), ` : ''}
        {resumed}
      </>
    );
  }
  if (end?.how === 'suspended') {
    return (
      <>
        <strong className="font-medium">Waited for {WAITED_FOR[end.status]}</strong> from <At ms={end.at} />
        {next.decidedBy ? (
          <>
            {' '}
            until <VisibleText text={next.decidedBy} /> decided
          </>
        ) : null}
        ; {resumed}
      </>
    );
  }
  return null;
}
