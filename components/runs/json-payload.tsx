import { VisibleText } from '@/components/ui/visible-text';
import { jsonReplacer } from '@/lib/studio/reads/wire';
import { cn } from '@/lib/utils';

/** Payloads longer than this many lines start collapsed. */
const COLLAPSE_LINES = 16;
/** Payloads past this size are cut, so one huge tool output cannot stall the page. */
const MAX_CHARS = 64_000;

/** Pretty JSON of a journal payload. Dates show as ISO strings (their toJSON); what JSON cannot hold is described. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, jsonReplacer, 2) ?? String(value);
}

/**
 * A payload as text inside <pre>: React escapes it, so HTML in tool inputs or model output is shown, never run,
 * and hidden characters are shown as their code points (VisibleText).
 * Long payloads are collapsed in a <details> (no script needed) and very long ones are cut with a note.
 */
export function JsonPayload({ value, className, ...props }: React.ComponentProps<'div'> & { value: unknown }) {
  const full = prettyJson(value);
  const text = full.length > MAX_CHARS ? full.slice(0, MAX_CHARS) : full;
  const lines = full.split('\n').length;
  const pre = (
    <pre className="overflow-x-auto rounded-md bg-muted px-3 py-2 font-mono text-xs leading-relaxed whitespace-pre-wrap break-words">
      <VisibleText text={text} />
      {full.length > MAX_CHARS ? `\n… ${full.length - MAX_CHARS} more characters not shown` : null}
    </pre>
  );
  return (
    <div data-slot="json-payload" className={cn('min-w-0', className)} {...props}>
      {lines > COLLAPSE_LINES ? (
        <details>
          <summary className="cursor-pointer text-xs text-muted-foreground select-none">
            {lines} lines, {formatSize(full.length)}
          </summary>
          <div className="mt-1.5">{pre}</div>
        </details>
      ) : (
        pre
      )}
    </div>
  );
}

function formatSize(chars: number): string {
  return chars < 1024 ? `${chars} characters` : `${(chars / 1024).toFixed(1)} K characters`;
}
