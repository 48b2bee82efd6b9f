import { prettyJson } from '@/components/runs/json-payload';
import { sizeOf } from '@/components/runs/payload-text';
import { VisibleText } from '@/components/ui/visible-text';

const MAX_CHARS = 64_000;

/** The event exactly as the journal holds it (JSON), collapsed: the one place every field is shown. */
export function RawRecord({ payload }: { payload: Record<string, unknown> }) {
  const full = prettyJson(payload);
  return (
    <details data-slot="raw-record" className="text-xs">
      <summary className="cursor-pointer text-muted-foreground select-none">
        Journal record · {full.split('\n').length} lines, {sizeOf(full.length)}
      </summary>
      <pre className="mt-1.5 overflow-x-auto rounded-md bg-muted px-3 py-2 font-mono text-xs leading-relaxed whitespace-pre-wrap break-words">
        <VisibleText text={full.slice(0, MAX_CHARS)} />
        {full.length > MAX_CHARS ? `\n… ${full.length - MAX_CHARS} more characters not shown` : null}
      </pre>
    </details>
  );
}
