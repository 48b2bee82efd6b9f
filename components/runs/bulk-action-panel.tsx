'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { applyBulkAction, previewBulkAction } from '@/app/(studio)/actions';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import type { RunStatus } from '@/lib/durable';
import type { BulkActionName, BulkRunRef, BulkRunResult } from '@/lib/executor';
import type { BulkRefusal } from '@/lib/studio/actions/bulk-actions';
import { runHref } from '@/lib/studio/reads/run-path';
import { cn } from '@/lib/utils';

const ACTIONS: Record<BulkActionName, string> = {
  cancel: 'Cancel',
  resume: 'Resume (waiting runs whose calls are all decided)',
  retry: 'Retry (resume failed runs)',
  approve: 'Approve the waiting calls of a tool',
  migrate: 'Migrate to the agent’s current version (safe moves only)',
};

/** The confirm button's verb. */
const VERB: Record<BulkActionName, string> = { cancel: 'Cancel', resume: 'Resume', retry: 'Retry', approve: 'Approve', migrate: 'Migrate' };

export interface BulkFilterFields {
  status: RunStatus | '';
  agent: string;
  version: string;
  tool: string;
  olderThan: string;
  newerThan: string;
}

const SELECT = 'h-9 rounded-md border bg-background px-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-foreground';

/** `stage`: the dry run refuses a filter; the change itself, its reason (nothing else is typed there). */
function Refused({ refusal, stage }: { refusal: BulkRefusal; stage: 'preview' | 'apply' }) {
  const invalid = stage === 'preview' ? 'Check the filter' : 'Say why';
  return (
    <Alert variant="destructive" data-testid="bulk-refusal">
      <AlertTitle>{refusal.kind === 'invalid' ? invalid : refusal.kind === 'forbidden' ? 'Not allowed' : 'Not done'}</AlertTitle>
      <AlertDescription>
        <VisibleText text={refusal.message} />
      </AlertDescription>
    </Alert>
  );
}

function RunLink({ runId }: { runId: string }) {
  return (
    <Link href={runHref(runId)} className="font-mono text-link hover:underline wrap-anywhere">
      <VisibleText text={runId} />
    </Link>
  );
}

function RefList({ title, runs, testId }: { title: string; runs: readonly (BulkRunRef & { reason?: string; message?: string })[]; testId: string }) {
  if (runs.length === 0) return null;
  return (
    <div className="space-y-1">
      <p className="text-sm font-medium">{title}</p>
      <ul className="max-h-72 space-y-0.5 overflow-auto text-xs" data-testid={testId}>
        {runs.map((run) => (
          <li key={run.runId} data-run-id={run.runId}>
            <RunLink runId={run.runId} /> <span className="text-muted-foreground">{run.status}</span>
            {run.reason ? (
              <span>
                {' '}
                — {run.reason}: <VisibleText text={run.message} />
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ResultList({ results }: { results: readonly BulkRunResult[] }) {
  return (
    <ul className="max-h-96 space-y-0.5 overflow-auto text-xs" data-testid="bulk-results">
      {results.map((result) => (
        <li key={result.runId} data-run-id={result.runId} data-outcome={result.outcome}>
          <span className={cn('font-medium', result.outcome === 'failed' && 'text-destructive')}>{result.outcome}</span> <RunLink runId={result.runId} />{' '}
          <span className="text-muted-foreground">
            {result.outcome === 'changed' ? <VisibleText text={result.detail} /> : null}
            {result.outcome === 'skipped' ? (
              <>
                {result.reason}: <VisibleText text={result.message} />
              </>
            ) : null}
            {result.outcome === 'failed' ? <VisibleText text={`${result.error.name}: ${result.error.message}`} /> : null}
          </span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A bulk action in two steps: Preview (the dry run: how many runs would change, which would be skipped
 * and why), then Apply with a reason, limited to the runs the preview listed, each judged again and
 * changed in the server in the operator's name; the results say, per run, what happened.
 */
export function BulkActionPanel({ agents, statuses, initial }: { agents: readonly string[]; statuses: readonly RunStatus[]; initial: BulkFilterFields }) {
  const [action, setAction] = useState<BulkActionName>('cancel');
  const [fields, setFields] = useState(initial);
  const [reason, setReason] = useState('');
  const preview = useMutation({ mutationFn: () => previewBulkAction({ action, ...fields }) });
  const apply = useMutation({
    mutationFn: (previewId: string) => applyBulkAction({ previewId, action, reason }),
  });
  const set = (name: keyof BulkFilterFields) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    setFields({ ...fields, [name]: e.target.value });
    preview.reset();
    apply.reset();
  };
  const shown = preview.data?.ok ? preview.data.preview : undefined;
  const done = apply.data?.ok ? apply.data.applied : undefined;
  const skippedTotal = shown ? shown.counts.matched - shown.counts.wouldChange : 0;
  return (
    <div className="space-y-4" data-testid="bulk-panel">
      <form
        aria-label="Bulk action filter"
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          apply.reset();
          preview.mutate();
        }}
      >
        <div className="grid gap-1">
          <Label htmlFor="bulk-action">Action</Label>
          <select
            id="bulk-action"
            className={SELECT}
            value={action}
            onChange={(e) => {
              setAction(e.target.value as BulkActionName);
              preview.reset();
              apply.reset();
            }}
          >
            {(Object.keys(ACTIONS) as BulkActionName[]).map((name) => (
              <option key={name} value={name}>
                {ACTIONS[name]}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="bulk-status">Status</Label>
          <select id="bulk-status" className={SELECT} value={fields.status} onChange={set('status')}>
            <option value="">any status</option>
            {statuses.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </div>
        <div className="grid gap-1">
          <Label htmlFor="bulk-agent">Agent</Label>
          <select id="bulk-agent" className={SELECT} value={fields.agent} onChange={set('agent')}>
            <option value="">any agent</option>
            {(fields.agent && !agents.includes(fields.agent) ? [...agents, fields.agent] : agents).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        {(
          [
            ['version', 'Agent version', 'e.g. 28210bc7c257c9c8'],
            ['tool', 'Waiting on tool', 'e.g. issueRefund'],
            ['olderThan', 'Older than', 'e.g. 2h'],
            ['newerThan', 'Newer than', 'e.g. 7d'],
          ] as const
        ).map(([name, label, placeholder]) => (
          <div key={name} className="grid w-40 gap-1">
            <Label htmlFor={`bulk-${name}`}>{label}</Label>
            <Input id={`bulk-${name}`} value={fields[name]} onChange={set(name)} placeholder={placeholder} maxLength={200} autoComplete="off" />
          </div>
        ))}
        <Button type="submit" size="sm" className="h-9" disabled={preview.isPending}>
          {preview.isPending ? 'Counting…' : 'Preview'}
        </Button>
      </form>

      {preview.data && !preview.data.ok ? <Refused refusal={preview.data} stage="preview" /> : null}
      {preview.error ? <Refused refusal={{ ok: false, kind: 'error', message: String(preview.error) }} stage="preview" /> : null}

      {shown ? (
        <section className="space-y-3 rounded-lg border p-3" data-testid="bulk-preview">
          <p className="text-sm">
            Dry run of <strong>{shown.action}</strong> (<VisibleText text={shown.filterText} />
            ): <strong data-testid="bulk-matched">{shown.counts.matched}</strong> run(s) match;{' '}
            <strong data-testid="bulk-would-change">{shown.counts.wouldChange}</strong> would change, <span data-testid="bulk-would-skip">{skippedTotal}</span>{' '}
            would be skipped
            {skippedTotal > 0
              ? ` (${Object.entries(shown.counts.skipped)
                  .map(([why, n]) => `${why} ${n}`)
                  .join(', ')})`
              : ''}
            . Nothing has changed yet.
          </p>
          <RefList
            title={`Would change${shown.counts.wouldChange > shown.wouldChange.length ? ` (first ${shown.wouldChange.length})` : ''}`}
            runs={shown.wouldChange}
            testId="bulk-would-change-list"
          />
          <RefList
            title={`Would skip${skippedTotal > shown.skipped.length ? ` (first ${shown.skipped.length})` : ''}`}
            runs={shown.skipped}
            testId="bulk-skipped-list"
          />
          {shown.counts.wouldChange > 0 && !done ? (
            <form
              className="max-w-xl space-y-2"
              onSubmit={(e) => {
                e.preventDefault();
                apply.mutate(shown.previewId);
              }}
            >
              <Label htmlFor="bulk-reason">Why? (recorded in every run changed, with your login)</Label>
              <Textarea id="bulk-reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
              <Button type="submit" size="sm" disabled={apply.isPending}>
                {apply.isPending ? 'Applying…' : `${VERB[shown.action]} ${shown.counts.wouldChange} run(s)`}
              </Button>
            </form>
          ) : null}
          {apply.data && !apply.data.ok ? <Refused refusal={apply.data} stage="apply" /> : null}
          {apply.error ? <Refused refusal={{ ok: false, kind: 'error', message: String(apply.error) }} stage="apply" /> : null}
        </section>
      ) : null}

      {done ? (
        <section className="space-y-2 rounded-lg border p-3" data-testid="bulk-applied">
          <p className="text-sm">
            Applied by <VisibleText text={done.by} />: <strong data-testid="bulk-changed">{done.counts.changed}</strong> changed,{' '}
            <strong data-testid="bulk-skipped">{done.counts.skipped}</strong> skipped, <strong data-testid="bulk-failed">{done.counts.failed}</strong> failed
            (the dry run counted {done.preview.wouldChange}).
            {done.sincePreview.noLongerQualified > 0 ? ` ${done.sincePreview.noLongerQualified} run(s) changed since the dry run and were skipped.` : ''}
            {done.sincePreview.newlyMatching > 0
              ? ` ${done.sincePreview.newlyMatching} run(s) match now that the dry run did not include: left alone (preview again to include them).`
              : ''}
          </p>
          <ResultList results={done.results} />
        </section>
      ) : null}
    </div>
  );
}
