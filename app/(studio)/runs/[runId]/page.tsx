import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { RunEventsList } from '@/components/runs/run-events-list';
import { RunSummaryCard } from '@/components/runs/run-summary-card';
import { buttonVariants } from '@/components/ui/button';
import { decodeRunSegment, runHref } from '@/lib/studio/run-path';
import { getRunWithEvents } from '@/lib/studio/runs';

type Params = Promise<{ runId: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: decodeRunSegment((await params).runId) ?? 'Not found' };
}

export default async function RunPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  await connection(); // the journal is read per request, never prerendered
  const runId = decodeRunSegment((await params).runId);
  const after = (await searchParams).after;
  const afterSeq = typeof after === 'string' && /^\d{1,9}$/.test(after) ? Number(after) : 0;
  const found = runId === undefined ? undefined : await getRunWithEvents(runId, afterSeq);
  if (!found) notFound();
  const { run, events, nextAfterSeq } = found;

  return (
    <div className="space-y-6">
      <div className="space-y-1">
        <Link href="/" className="text-sm text-muted-foreground hover:text-foreground">
          ← Runs
        </Link>
        <h1 className="font-mono text-lg font-semibold wrap-anywhere" data-testid="run-id">
          {run.runId}
        </h1>
      </div>
      <RunSummaryCard run={run} />
      <section className="space-y-3">
        <h2 className="text-base font-semibold tracking-tight">
          Journal{afterSeq > 0 ? ` after #${afterSeq}` : ''} <span className="font-normal text-muted-foreground">({run.lastSeq} events)</span>
        </h2>
        {events.length > 0 ? <RunEventsList events={events} /> : <p className="text-sm text-muted-foreground">No events after #{afterSeq}.</p>}
        <nav aria-label="Journal pages" className="flex justify-end gap-2">
          {afterSeq > 0 ? (
            <Link href={runHref(run.runId)} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
              First events
            </Link>
          ) : null}
          {nextAfterSeq !== undefined ? (
            <Link href={`${runHref(run.runId)}?after=${nextAfterSeq}`} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
              Next events
            </Link>
          ) : null}
        </nav>
      </section>
    </div>
  );
}
