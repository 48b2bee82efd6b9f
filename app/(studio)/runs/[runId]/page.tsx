import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { RunMemory } from '@/components/memory/run-memory';
import { LiveRunNotifications } from '@/components/runs/live-run-notifications';
import { RunErasure } from '@/components/runs/run-erasure';
import { RunExportLink } from '@/components/runs/run-export-link';
import { RunView } from '@/components/timeline/run-view';
import { VisibleText } from '@/components/ui/visible-text';
import { RunVersionLine } from '@/components/versions/run-version-line';
import { RunWorkflow } from '@/components/workflows/run-workflow';
import { loadConversationTurn } from '@/lib/studio/reads/conversation';
import { conversationHref, conversationIdOf } from '@/lib/studio/reads/conversation-path';
import { loadRunNotifications } from '@/lib/studio/reads/notifications';
import { runMemoryView } from '@/lib/durable';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { getRunView } from '@/lib/studio/reads/runs';
import { erasureAvailable } from '@/lib/studio/actions/erase-action';
import { traceUrlTemplate } from '@/lib/studio/trace-link';
import { loadRunVersion } from '@/lib/studio/reads/versions';
import { loadWorkflowView } from '@/lib/studio/reads/workflow-view';
import { requireOperator } from '@/lib/studio/auth/session';
import { markedText } from '@/lib/text';

type Params = Promise<{ runId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const runId = decodeRunSegment((await params).runId);
  // A title is a string, not markup: a run id's hidden characters as ⟨U+202E⟩ text.
  return { title: runId === undefined ? 'Not found' : markedText(runId) };
}

export default async function RunPage({ params }: { params: Params }) {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const runId = decodeRunSegment((await params).runId);
  const view = runId === undefined ? undefined : await getRunView(runId);
  if (!view) notFound();
  const conversationId = conversationIdOf(view.run.input);
  const place = conversationId === undefined ? undefined : await loadConversationTurn(conversationId, view.run.runId);
  const version = await loadRunVersion(view.run.runId);
  const notifications = await loadRunNotifications(view.run.runId);
  const workflow = await loadWorkflowView(view.run.runId);
  const memory = view.run.erased ? undefined : runMemoryView(view.run.input);

  return (
    <RunView initial={view} traceUrl={traceUrlTemplate()}>
      <div className="space-y-1">
        <div className="flex items-center justify-between gap-2">
          <Link href="/" className="text-sm text-muted-foreground hover:text-foreground">
            ← Runs
          </Link>
          <div className="flex items-start gap-2">
            {view.run.erased ? null : <RunErasure run={view.run} available={erasureAvailable()} />}
            <RunExportLink runId={view.run.runId} />
          </div>
        </div>
        <h1 className="font-mono text-lg font-semibold wrap-anywhere" data-testid="run-id">
          <VisibleText text={view.run.runId} />
        </h1>
        {conversationId !== undefined ? (
          <p className="text-sm text-muted-foreground" data-testid="run-conversation">
            {place ? `Turn ${place.turn} of ` : 'A turn of '}conversation{' '}
            <Link href={conversationHref(conversationId)} className="font-mono wrap-anywhere text-link hover:underline">
              <VisibleText text={conversationId} />
            </Link>
          </p>
        ) : null}
        {version ? <RunVersionLine info={version} runId={view.run.runId} /> : null}
        <LiveRunNotifications runId={view.run.runId} initial={notifications} />
        {workflow ? <RunWorkflow runId={view.run.runId} view={workflow} renderedSeq={view.run.lastSeq} /> : null}
        {memory ? <RunMemory view={memory} /> : null}
        {view.run.erased ? <RunErasure run={view.run} available={false} /> : null}
      </div>
    </RunView>
  );
}
