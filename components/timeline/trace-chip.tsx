'use client';

import { createContext, useContext } from 'react';
import { traceHref } from '@/lib/studio/trace-link';
import { Chip } from './event-parts';

/** GNL_TRACE_URL's template, read by the run page on the server (lib/studio/trace-link.ts). */
export const TraceLinkContext = createContext<string | undefined>(undefined);

/**
 * The invocation's recorded span (run-start's or run-resume's `trace`): its trace id, linked to where traces
 * live when GNL_TRACE_URL says so. Nothing when the invocation recorded none (no tracer provider).
 */
export function TraceChip({ trace }: { trace: { traceId: string; spanId: string } | undefined }) {
  const template = useContext(TraceLinkContext);
  if (!trace) return null;
  const href = template === undefined ? undefined : traceHref(template, trace.traceId);
  const label = `trace ${trace.traceId.slice(0, 8)}…`;
  return (
    <Chip className="font-mono" data-testid="trace-chip" title={`trace ${trace.traceId}, span ${trace.spanId}`}>
      {href ? (
        <a href={href} target="_blank" rel="noopener noreferrer" className="text-link hover:underline">
          {label}
        </a>
      ) : (
        label
      )}
    </Chip>
  );
}
