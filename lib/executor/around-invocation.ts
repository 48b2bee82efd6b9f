/**
 * The seam around each invocation of a run: whoever makes an executor may wrap every invocation it
 * starts (the demo arms the crash point a run was started with this way, lib/demo crash-point-store.ts).
 * The executor itself knows nothing of what the wrapper does; it calls `invoke` exactly once inside it,
 * and what the wrapper returns or throws is the invocation's result.
 */
import type { DurableResult } from '@/lib/durable';

/** The run an invocation is for. */
export interface InvokedRun {
  runId: string;
  /** The registered agent invoked (the run queue's `agent`). */
  agent: string;
}

export type AroundInvocation = (run: InvokedRun, invoke: () => Promise<DurableResult<any>>) => Promise<DurableResult<any>>;
