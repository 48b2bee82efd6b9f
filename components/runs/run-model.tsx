import type { RunInput } from '@/lib/durable';
import { cn } from '@/lib/utils';
import { VisibleText } from '@/components/ui/visible-text';

/** The model a run was started with (the journal keeps no agent name yet). Old rows may lack fields. */
export function RunModel({ input, className, ...props }: React.ComponentProps<'div'> & { input: Partial<RunInput> | undefined }) {
  return (
    <div data-slot="run-model" className={cn('min-w-0', className)} {...props}>
      <div className="font-mono text-xs wrap-break-word">
        <VisibleText text={input?.modelId ?? 'unknown model'} />
      </div>
      <div className="text-xs text-muted-foreground">
        <VisibleText text={input?.provider ?? 'unknown provider'} />
      </div>
    </div>
  );
}
