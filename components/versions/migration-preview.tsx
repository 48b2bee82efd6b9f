import { VisibleText } from '@/components/ui/visible-text';
import type { MigrationPreview } from '@/lib/executor';
import { cn } from '@/lib/utils';

/** What a migration keeps (every finished call, with its key), what runs next on the new version, and what would be unsafe. */
export function MigrationPreviewView({ preview, className, ...props }: React.ComponentProps<'section'> & { preview: MigrationPreview }) {
  return (
    <section className={cn('space-y-4 text-sm', className)} data-testid="migration-preview" data-safe={preview.safe} {...props}>
      <p>
        <VisibleText text={preview.agent} /> version <code className="font-mono">{preview.from ? <VisibleText text={preview.from} /> : '?'}</code> →{' '}
        <code className="font-mono" data-testid="migration-to">
          <VisibleText text={preview.to} />
        </code>
        . Changes: <VisibleText text={preview.changed.map((d) => d.field).join(', ')} />.
      </p>
      <div className="space-y-1">
        <h2 className="font-medium">
          Kept: {preview.kept.length} finished call{preview.kept.length === 1 ? '' : 's'}, replayed from the journal, never executed again
        </h2>
        <ul className="space-y-1 text-xs">
          {preview.kept.map((call) => (
            <li key={`${call.toolCallId}:${call.idempotencyKey}`} data-testid="migration-kept" data-tool={call.toolName}>
              <code className="font-mono font-medium">
                <VisibleText text={call.toolName} />
              </code>{' '}
              <span className="text-muted-foreground">
                (<VisibleText text={call.toolCallId} />) · {call.outcome} · key{' '}
                <code className="font-mono">
                  <VisibleText text={call.idempotencyKey} />
                </code>
              </span>
            </li>
          ))}
        </ul>
      </div>
      <div className="space-y-1">
        <h2 className="font-medium">Runs next, on version {preview.to}</h2>
        <ul className="space-y-1 text-xs">
          {preview.reruns.map((call) => (
            <li key={call.toolCallId} data-testid="migration-rerun" data-tool={call.toolName} data-action={call.action}>
              <code className="font-mono font-medium">
                <VisibleText text={call.toolName} />
              </code>{' '}
              <span className="font-medium">{call.action}</span>
              {call.toolChanged ? <span className="font-medium"> · its tool changed</span> : null}
              <span className="text-muted-foreground">
                {' '}
                — <VisibleText text={call.why} />
              </span>
            </li>
          ))}
          <li>Then model step {preview.nextStep + 1}, the first one not recorded, asked by the new version.</li>
        </ul>
      </div>
      {preview.refusals.length > 0 ? (
        <div className="space-y-1 rounded-lg border border-red-500/50 bg-red-500/5 p-3" data-testid="migration-refusals">
          <h2 className="font-medium">Unsafe: refused unless you override it on purpose</h2>
          <ul className="list-disc space-y-1 pl-5 text-xs">
            {preview.refusals.map((refusal) => (
              <li key={refusal}>
                <VisibleText text={refusal} />
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}
