'use client';

import type { CallHistory } from '@/lib/durable/projection';
import { crashGuide } from '@/lib/studio/reads/crash-guide';

const MARK = { done: '✓', now: '→', next: '·' } as const;

/**
 * The guided crash's checklist on the run page (the Demo page's "Try a crash inside a refund"): each step
 * done, the one to do now, and the outside service's counters beside it (the page's demo counters).
 */
export function CrashGuideList({ index, status }: { index: Pick<CallHistory, 'calls' | 'resumes'>; status: string }) {
  const guide = crashGuide({ index, status });
  const now = guide.steps.find((step) => step.state === 'now');
  return (
    <section className="space-y-2 rounded-lg border border-sky-500/40 bg-sky-500/5 p-4" data-testid="crash-guide" data-now={now?.id ?? 'done'}>
      <h2 className="text-sm font-semibold">A crash inside a refund, step by step</h2>
      <ol className="space-y-1 text-sm">
        {guide.steps.map((step) => (
          <li
            key={step.id}
            data-step={step.id}
            data-state={step.state}
            className={step.state === 'now' ? 'font-medium' : step.state === 'next' ? 'text-muted-foreground' : ''}
          >
            <span aria-hidden className="inline-block w-4">
              {MARK[step.state]}
            </span>
            <span className="sr-only">{step.state === 'done' ? 'Done: ' : step.state === 'now' ? 'Now: ' : 'Then: '}</span>
            {step.title}
          </li>
        ))}
      </ol>
      {guide.off ? (
        <p className="text-sm" data-slot="guide-off">
          {guide.off}
        </p>
      ) : null}
    </section>
  );
}
