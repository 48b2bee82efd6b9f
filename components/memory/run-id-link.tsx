import Link from 'next/link';
import { VisibleText } from '@/components/ui/visible-text';
import { runHref } from '@/lib/studio/reads/run-path';

/** A run id as a link to its page, shown as text (hidden characters marked): who wrote a memory version or item. */
export function RunIdLink({ runId }: { runId: string }) {
  return (
    <Link href={runHref(runId)} className="font-mono text-link hover:underline wrap-anywhere">
      <VisibleText text={runId} />
    </Link>
  );
}
