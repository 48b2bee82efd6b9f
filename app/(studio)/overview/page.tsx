import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { z } from 'zod';
import { CostByAgentChart, RunsByStatusChart, TokensByAgentChart } from '@/components/overview/overview-charts';
import { CostValue } from '@/components/runs/run-cost';
import { formatMs } from '@/components/runs/run-totals';
import { buttonVariants } from '@/components/ui/button';
import { RelativeTime } from '@/components/ui/relative-time';
import { VisibleText } from '@/components/ui/visible-text';
import { requireOperator } from '@/lib/studio/auth/session';
import { loadOverview } from '@/lib/studio/reads/overview';
import type { Overview } from '@/lib/studio/reads/overview-shape';
import { runHref } from '@/lib/studio/reads/run-path';
import { parseFilterText } from '@/lib/studio/reads/runs';
import { cn } from '@/lib/utils';

export const metadata: Metadata = { title: 'Overview' };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const WINDOWS = [7, 14, 30] as const;
const daysParam = z.coerce
  .number()
  .int()
  .refine((n) => (WINDOWS as readonly number[]).includes(n))
  .catch(14);

const seconds = (s: number | null) => (s === null ? '—' : formatMs(s * 1000));

export default async function OverviewPage({ searchParams }: { searchParams: SearchParams }) {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const params = await searchParams;
  const days = daysParam.parse(params.days);
  const agent = parseFilterText(params.agent);
  const overview = await loadOverview({ days, ...(agent ? { agent } : {}) });
  const { decisions, oldestWaiting } = overview;

  return (
    <div className="space-y-6" data-testid="overview">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Overview</h1>
          <p className="text-sm text-muted-foreground">
            The last {days} days (UTC), since {overview.since}
            {agent ? <VisibleText text={`, agent ${agent}`} /> : ', every agent'}.
          </p>
        </div>
        <nav aria-label="Window" className="flex gap-1">
          {WINDOWS.map((n) => (
            <Link
              key={n}
              href={`/overview?${new URLSearchParams({ days: String(n), ...(agent ? { agent } : {}) }).toString()}`}
              className={buttonVariants({ variant: n === days ? 'default' : 'outline', size: 'sm' })}
              aria-current={n === days ? 'page' : undefined}
            >
              {n} days
            </Link>
          ))}
        </nav>
      </div>

      <div className="grid gap-4 sm:grid-cols-3">
        <Stat label="People take to decide (median)" testId="overview-median">
          {seconds(decisions.medianS)}
        </Stat>
        <Stat label="…and at the 90th percentile" testId="overview-p90">
          {seconds(decisions.p90S)}
        </Stat>
        <Stat label="Oldest item waiting for a person" testId="overview-oldest">
          {oldestWaiting ? (
            <span className="space-y-1">
              <RelativeTime value={oldestWaiting.since} className="block" />
              <Link href={runHref(oldestWaiting.runId)} className="block truncate font-mono text-xs font-normal text-link hover:underline">
                <VisibleText text={oldestWaiting.runId} />
              </Link>
              <span className="block text-xs font-normal text-muted-foreground">
                {oldestWaiting.status}
                {oldestWaiting.item?.toolName ? <VisibleText text={` · ${oldestWaiting.item.toolName}`} /> : null}
              </span>
            </span>
          ) : (
            'nothing waits'
          )}
        </Stat>
      </div>
      <p className="-mt-3 text-xs text-muted-foreground">
        {decisions.count} decision{decisions.count === 1 ? '' : 's'} by people in the window: from the question (an approval request, or the run’s stop for an
        uncertain side effect or a tool result) to the answer. Decisions by a policy and expired approvals are left out.
      </p>

      <Panel title="Runs by status, per day they started">
        <RunsByStatusChart rows={overview.statusByDay} statuses={overview.statuses} />
      </Panel>
      <Panel title="Tokens per agent per day (input + output)">
        <TokensByAgentChart rows={overview.tokensByDay} agents={overview.agents} />
      </Panel>
      <Panel title="Cost per agent per day (USD, the priced steps)">
        {overview.cost.pricedSteps > 0 ? (
          <CostByAgentChart rows={overview.costByDay} agents={overview.costByAgent.map((a) => a.agent)} />
        ) : (
          // An empty chart says nothing: say why instead, and where prices are set (issue 32).
          <p className="text-sm text-muted-foreground" data-testid="overview-cost-empty">
            No step in this window ran on a model the price table lists, so there is no cost to draw. Add the models you use to a price file named by
            GNL_PRICES_FILE (the same shape as lib/cost/prices.json; read when the page loads, no rebuild): docs/operations.md#cost.
          </p>
        )}
        <CostTable overview={overview} />
      </Panel>
    </div>
  );
}

/** Each agent's cost over the window, and what could not be priced (docs/operations.md#cost). */
function CostTable({ overview }: { overview: Overview }) {
  const { costByAgent, cost, pricesProblem } = overview;
  return (
    <div className="space-y-2 text-sm" data-testid="overview-cost">
      {pricesProblem ? (
        <p className="text-destructive" data-testid="overview-prices-problem">
          No prices: <VisibleText text={pricesProblem} />
        </p>
      ) : null}
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1">
        {costByAgent.map(({ agent, cost: agentCost }) => (
          <div key={agent} className="contents" data-agent={agent}>
            <dt className="text-muted-foreground">
              <VisibleText text={agent} />
            </dt>
            <dd>
              <CostValue cost={agentCost} />
            </dd>
          </div>
        ))}
        <div className="contents font-medium">
          <dt>Every agent</dt>
          <dd>
            <CostValue cost={cost} data-testid="overview-cost-total" />
          </dd>
        </div>
      </dl>
      <p className="text-xs text-muted-foreground">
        From the price table{cost.takenOn.length > 0 ? ` (prices taken on ${cost.takenOn.join(', ')})` : ''}; a model without a price there is counted as
        unpriced, never as $0.
      </p>
    </div>
  );
}

function Stat({ label, testId, children }: { label: string; testId: string; children: React.ReactNode }) {
  return (
    <section className="rounded-lg border p-4" data-testid={testId}>
      <h2 className="text-xs text-muted-foreground">{label}</h2>
      <div className="mt-1 text-2xl font-semibold tabular-nums">{children}</div>
    </section>
  );
}

function Panel({ title, className, children }: { title: string; className?: string; children: React.ReactNode }) {
  return (
    <section className={cn('space-y-2 rounded-lg border p-4', className)}>
      <h2 className="text-sm font-semibold">{title}</h2>
      {children}
    </section>
  );
}
