import { costOf, type PriceTable } from '@/lib/cost';
import type { RunTotals } from '@/lib/durable/projection';
import type { WireRun } from '@/lib/studio/reads/wire';
import { cn } from '@/lib/utils';
import { CostValue } from './run-cost';

export function formatMs(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return minutes < 60 ? `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const n = (value: number) => value.toLocaleString('en-US');

/** A run's totals: steps, tokens (cache and reasoning when any were reported), cost under `prices`, model and tool time, elapsed. */
export function RunTotalsRow({
  run,
  totals,
  prices,
  className,
  ...props
}: React.ComponentProps<'dl'> & { run: WireRun; totals: RunTotals; prices: PriceTable }) {
  const { tokens } = totals;
  const elapsed = Date.parse(run.updatedAt) - Date.parse(run.createdAt);
  const items: [string, React.ReactNode][] = [
    ['Model steps', n(totals.steps)],
    ['Input tokens', n(tokens.input)],
    ['Output tokens', n(tokens.output)],
    ...(tokens.cacheRead || tokens.cacheWrite ? ([['Cache read / write', `${n(tokens.cacheRead)} / ${n(tokens.cacheWrite)}`]] as [string, string][]) : []),
    ...(tokens.reasoning ? ([['Reasoning tokens', n(tokens.reasoning)]] as [string, string][]) : []),
    ['Cost', <CostValue key="cost" cost={costOf(totals.models, prices)} problem={prices.problem} />],
    ['In the model', formatMs(totals.modelMs)],
    ['In tools', formatMs(totals.toolMs)],
    ['First to last event', Number.isFinite(elapsed) ? formatMs(elapsed) : '—'],
  ];
  return (
    <dl data-testid="run-totals" className={cn('grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4 lg:grid-cols-8', className)} {...props}>
      {items.map(([label, value]) => (
        <div key={label} className="min-w-0" data-total={label}>
          <dt className="text-xs text-muted-foreground">{label}</dt>
          <dd className="mt-0.5 tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
