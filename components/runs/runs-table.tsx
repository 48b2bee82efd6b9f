import Link from 'next/link';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { RelativeTime } from '@/components/ui/relative-time';
import { conversationHref, conversationIdOf } from '@/lib/studio/reads/conversation-path';
import { runHref } from '@/lib/studio/reads/run-path';
import { inboxCount, type RunListing, runGoal } from '@/lib/studio/reads/run-listing';
import { CostValue } from './run-cost';
import { RunMarksRow } from './run-marks';
import { formatMs } from './run-totals';
import { RunLeaseLapsed } from './run-lease-lapsed';
import { RunModel } from './run-model';
import { RunPendingReason } from './run-pending-reason';
import { RunStatusBadge } from './run-status-badge';
import { VisibleText } from '@/components/ui/visible-text';

/** Under a run id: the conversation the run is a turn of, as a link to its thread. */
function ConversationLabel({ conversationId }: { conversationId: string | undefined }) {
  if (conversationId === undefined) return null;
  return (
    <div className="mt-0.5 text-xs text-muted-foreground wrap-anywhere" data-slot="run-conversation">
      conversation{' '}
      <Link href={conversationHref(conversationId)} className="font-mono text-link hover:underline">
        <VisibleText text={conversationId} />
      </Link>
    </div>
  );
}

/** The run's goal (its prompt's first line) above its id; untrusted text, shown as text. */
function Goal({ goal }: { goal: string | undefined }) {
  if (goal === undefined) return null;
  return (
    <div className="mb-0.5 line-clamp-2 text-sm wrap-anywhere" data-testid="run-goal" title={goal}>
      <VisibleText text={goal} />
    </div>
  );
}

function durationText(from: string, to: string): string {
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? formatMs(ms) : '—';
}

export function RunsTable({ runs, ...props }: React.ComponentProps<typeof Table> & { runs: readonly RunListing[] }) {
  return (
    <Table data-testid="runs-table" {...props}>
      <TableHeader>
        <TableRow>
          <TableHead>Run</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>Agent</TableHead>
          <TableHead>Model</TableHead>
          <TableHead className="text-right">Steps</TableHead>
          <TableHead className="text-right">Tokens</TableHead>
          <TableHead className="text-right">Cost</TableHead>
          <TableHead className="text-right">Duration</TableHead>
          <TableHead>Created</TableHead>
          <TableHead>Updated</TableHead>
          <TableHead>Waiting on</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {runs.map((run) => (
          <TableRow key={run.runId} data-testid="run-row" data-run-id={run.runId} data-status={run.status}>
            <TableCell className="max-w-96 min-w-56">
              <Goal goal={runGoal(run.input)} />
              <Link href={runHref(run.runId)} className="font-mono text-xs wrap-anywhere text-link hover:underline">
                <VisibleText text={run.runId} />
              </Link>
              <ConversationLabel conversationId={conversationIdOf(run.input)} />
              <RunMarksRow marks={run.marks} inbox={inboxCount(run)} className="mt-1" />
              {run.erased ? (
                <span
                  data-testid="run-erased-mark"
                  title={`Erased by ${run.erased.by}: its data can no longer be read`}
                  className="mt-1 inline-flex rounded bg-zinc-500/15 px-1.5 py-0.5 text-xs font-medium text-zinc-700 dark:text-zinc-300"
                >
                  erased
                </span>
              ) : null}
            </TableCell>
            <TableCell>
              <RunStatusBadge status={run.status} />
            </TableCell>
            <TableCell className="text-xs" data-testid="run-agent">
              {run.input?.agent ? <VisibleText text={run.input.agent} /> : <span className="text-muted-foreground">—</span>}
            </TableCell>
            <TableCell className="min-w-36">
              <RunModel input={run.input} />
            </TableCell>
            <TableCell className="text-right tabular-nums">{run.stepCount}</TableCell>
            <TableCell className="text-right tabular-nums" data-testid="run-tokens">
              {run.tokens === undefined ? '…' : run.tokens.toLocaleString('en')}
            </TableCell>
            <TableCell className="text-right text-xs" data-testid="run-cost">
              {run.cost === undefined ? '…' : <CostValue cost={run.cost} />}
            </TableCell>
            <TableCell className="text-right text-xs tabular-nums" data-testid="run-duration" title="First to last event (a later fork or restart of it aside)">
              {durationText(run.createdAt, run.workedUntil ?? run.updatedAt)}
            </TableCell>
            <TableCell className="text-xs">
              <RelativeTime value={run.createdAt} />
            </TableCell>
            <TableCell className="text-xs">
              <RelativeTime value={run.updatedAt} />
            </TableCell>
            <TableCell className="min-w-64">
              <RunPendingReason pending={run.pending} />
              {run.lapsedLease && run.status === 'running' ? <RunLeaseLapsed lease={run.lapsedLease} /> : null}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
