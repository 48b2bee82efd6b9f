import { PayloadText } from '@/components/runs/payload-text';
import type { Invocation } from '@/lib/durable/projection';
import { cn } from '@/lib/utils';

/**
 * The run's outcome at the top of its page: the final answer of a completed run (its run-complete's
 * text), or the error its last invocation failed with; shown as text (PayloadText).
 */
export function RunAnswer({ invocations, className, ...props }: React.ComponentProps<'div'> & { invocations: readonly Invocation[] }) {
  const end = invocations.at(-1)?.end;
  if (end?.how !== 'completed' && end?.how !== 'failed') return null;
  return (
    <div data-testid="run-answer" className={cn('border-t pt-3', className)} {...props}>
      {end.how === 'completed' ? (
        <PayloadText label="Final answer" value={end.text} />
      ) : (
        <PayloadText label="Failed with" value={`${end.error.name}: ${end.error.message}`} />
      )}
    </div>
  );
}
