import Link from 'next/link';
import { VisibleText } from '@/components/ui/visible-text';
import { memoryHref } from '@/lib/studio/reads/memory-path';
import type { RunMemoryView } from '@/lib/durable';

/** On a run's page: the memory it was given when it started (its record, which every resume gives again), each recalled item with its score. */
export function RunMemory({ view }: { view: RunMemoryView }) {
  return (
    <section className="space-y-1 rounded-lg border px-4 py-3 text-sm" data-testid="run-memory">
      <p>
        Given the memory of{' '}
        <Link href={memoryHref(view.resource)} className="font-mono text-link hover:underline wrap-anywhere">
          <VisibleText text={view.resource} />
        </Link>
        , thread{' '}
        <span className="font-mono wrap-anywhere">
          <VisibleText text={view.thread} />
        </span>
        : {view.messages} earlier {view.messages === 1 ? 'message' : 'messages'}
        {view.recalled.length > 0 ? `, and ${view.recalled.length} recalled by similarity:` : ', nothing recalled.'}
      </p>
      {view.recalled.length > 0 ? (
        <ol className="space-y-1" data-testid="run-recalled">
          {view.recalled.map((item) => (
            <li key={item.id} className="flex gap-2" data-testid="run-recalled-item">
              <span className="w-14 shrink-0 text-right font-mono tabular-nums" data-slot="score" title="cosine similarity to the run's prompt">
                {item.score.toFixed(2)}
              </span>
              <span className="w-12 shrink-0 text-muted-foreground">{item.kind}</span>
              <span className="whitespace-pre-wrap wrap-anywhere">{item.text === undefined ? `item ${item.id}` : <VisibleText text={item.text} />}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
