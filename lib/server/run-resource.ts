/** A run as the API answers it (api-schemas.ts runResource), from its summary: dates as ISO strings, secrets redacted. */
import { type RecordedEvent, RunState, type RunSummary } from '@/lib/durable';
import type { RunResource, RunResult } from '@/lib/durable/client';
import { jsonSafe } from '@/lib/studio/reads/wire';

/** The registered name a run belongs to: its agent's or workflow's (`(unregistered)` for a direct runDurable call). */
export function runName(run: RunSummary): string {
  return run.input.agent ?? run.input.workflow?.name ?? '(unregistered)';
}

export function runResourceOf(run: RunSummary): RunResource {
  const safe = jsonSafe({ pending: run.pending });
  return {
    runId: run.runId,
    kind: run.input.workflow ? 'workflow' : 'agent',
    name: runName(run),
    ...(run.input.workflow?.version ? { version: run.input.workflow.version } : {}),
    status: run.status,
    stepCount: run.stepCount,
    lastSeq: run.lastSeq,
    pending: safe.pending as RunResource['pending'],
    ...(run.input.parent ? { parent: run.input.parent.runId } : {}),
    erased: run.erased !== undefined,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
  };
}

const FINISHED = new Set(['completed', 'failed', 'canceled']);

/** What the run ended with, by the projection (RunState): its completion's text and output, its last failure, or its cancel. */
export function runResultOf(run: RunSummary, events: readonly RecordedEvent[]): RunResult {
  const finished = FINISHED.has(run.status);
  const base: RunResult = { runId: run.runId, status: run.status, finished };
  if (!finished) return base;
  const state = new RunState(events);
  if (run.status === 'completed')
    return jsonSafe({
      ...base,
      ...(state.completedText !== undefined ? { text: state.completedText } : {}),
      ...(state.completedOutput !== undefined ? { output: state.completedOutput } : {}),
    });
  if (run.status === 'failed' && state.failure) return jsonSafe({ ...base, error: { name: state.failure.name, message: state.failure.message } });
  if (run.status === 'canceled' && state.canceled) return jsonSafe({ ...base, canceled: state.canceled });
  return base;
}
