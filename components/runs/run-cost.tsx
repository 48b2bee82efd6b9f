import { type Cost, costText, unpricedText } from '@/lib/cost';
import { cn } from '@/lib/utils';

/** How much of a cost is known: every step priced, some, or none (styled apart: an unknown is never shown as a price). */
export type CostCoverage = 'all' | 'part' | 'none';

export function costCoverage(cost: Cost): CostCoverage {
  return cost.unpricedSteps === 0 ? 'all' : cost.pricedSteps === 0 ? 'none' : 'part';
}

/**
 * A cost as text ("$0.0123", "≥ $0.0123 (2 steps unpriced)", "price unknown"), with what it leaves out and
 * the day its prices were taken in its title (model ids are recorded data: React renders them as text).
 */
export function CostValue({ cost, problem, className, ...props }: React.ComponentProps<'span'> & { cost: Cost; problem?: string | undefined }) {
  const coverage = costCoverage(cost);
  const title = [...unpricedText(cost), ...(cost.takenOn.length > 0 ? [`Prices taken on ${cost.takenOn.join(', ')}`] : []), ...(problem ? [problem] : [])].join(
    '\n',
  );
  return (
    <span
      data-testid="cost"
      data-coverage={coverage}
      title={title || undefined}
      className={cn('tabular-nums', coverage === 'none' && 'text-muted-foreground italic', className)}
      {...props}
    >
      {costText(cost)}
    </span>
  );
}
