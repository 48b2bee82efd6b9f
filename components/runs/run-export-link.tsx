import { buttonVariants } from '@/components/ui/button';
import { encodeRunSegment } from '@/lib/studio/reads/run-path';
import { cn } from '@/lib/utils';

/** Downloads the run's journal as JSON lines, secrets redacted (app/api/runs/[runId]/export). */
export function RunExportLink({ runId, className, ...props }: React.ComponentProps<'a'> & { runId: string }) {
  return (
    <a
      data-slot="run-export"
      href={`/api/runs/${encodeRunSegment(runId)}/export`}
      download
      title="The run's journal as JSON lines, secrets redacted (gnl import brings it into another journal)"
      className={cn(buttonVariants({ variant: 'outline', size: 'sm' }), className)}
      {...props}
    >
      Export
    </a>
  );
}
