import { connection } from 'next/server';
import { BulkActionPanel } from '@/components/runs/bulk-action-panel';
import { agentNames, parseFilterText, parseRunStatus, RUN_STATUS_FILTERS } from '@/lib/studio/reads/runs';
import { requireOperator } from '@/lib/studio/auth/session';

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** Bulk actions on the runs a filter matches (the runs list's status and agent carried over): preview, then apply with a reason. */
export default async function BulkPage({ searchParams }: { searchParams: SearchParams }) {
  await connection();
  await requireOperator();
  const params = await searchParams;
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Bulk actions</h1>
        <p className="text-sm text-muted-foreground">
          Cancel, resume, retry or approve every run a filter matches. Preview first: nothing changes until you apply it with a reason, and the apply touches
          only the runs the preview listed, each checked again.
        </p>
      </div>
      <BulkActionPanel
        agents={agentNames()}
        statuses={RUN_STATUS_FILTERS}
        initial={{
          status: parseRunStatus(params.status) ?? '',
          agent: parseFilterText(params.agent) ?? '',
          version: '',
          tool: '',
          olderThan: '',
          newerThan: '',
        }}
      />
    </div>
  );
}
