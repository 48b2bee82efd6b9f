/**
 * A decorator around a REAL journal that reports every boundary of the run's appends: right before an
 * append begins and right after it committed. Like e2e/crash/crashing-journal.ts it fakes nothing:
 * every call goes to the real journal; the `boundary` callback may kill the process there.
 */
import type { Journal, JournalEvent, RunHold } from '@/lib/durable';

/** A name for what an append holds: `model-step[refund]`, `tool-call-start(refund)`, `run-suspend`, joined by '+'. */
export function describeAppend(events: readonly JournalEvent[]): string {
  return events
    .map((event) => {
      if (event.type === 'model-step') {
        const content = (event.result as { content?: { type: string; toolName?: string }[] }).content ?? [];
        const calls = content.flatMap((part) => (part.type === 'tool-call' ? [String(part.toolName)] : []));
        return `model-step[${calls.length ? calls.join(',') : 'text'}]`;
      }
      return 'toolName' in event ? `${event.type}(${event.toolName})` : event.type;
    })
    .join('+');
}

export type BoundaryListener = (label: string, events: readonly JournalEvent[]) => void;

export function boundaryJournal(journal: Journal, boundary: BoundaryListener): Journal {
  const around = async <T>(events: readonly JournalEvent[], write: () => Promise<T>): Promise<T> => {
    const what = describeAppend(events);
    boundary(`before:${what}`, events);
    const recorded = await write();
    boundary(`after:${what}`, events);
    return recorded;
  };
  const wrapHold = (hold: RunHold): RunHold => ({
    get runId() {
      return hold.runId;
    },
    load: () => hold.load(),
    create: (input) => around([{ type: 'run-start', input }], () => hold.create(input)),
    append: (events) => around(events, () => hold.append(events)),
    appendAfter: (lastSeq, events) => around(events, () => hold.appendAfter(lastSeq, events)),
    release: () => hold.release(),
    get canceled() {
      return hold.canceled;
    },
  });
  return {
    hold: async (runId) => wrapHold(await journal.hold(runId)),
    approve: (request) => journal.approve(request),
    reject: (request) => journal.reject(request),
    resolveSideEffect: (request) => journal.resolveSideEffect(request),
    provideToolResult: (request) => journal.provideToolResult(request),
    cancel: (request) => journal.cancel(request),
    requestResume: (request) => journal.requestResume(request),
    getRun: (runId) => journal.getRun(runId),
    listRuns: (options) => journal.listRuns(options),
    events: (runId, options) => journal.events(runId, options),
  };
}
