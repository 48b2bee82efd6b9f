/**
 * A decorator around a REAL journal that reports every boundary of the run's appends: right before an
 * append begins and right after it committed. Like e2e/crash/crashing-journal.ts it fakes nothing:
 * every call goes to the real journal; the `boundary` callback may kill the process there.
 */
import type { Journal, JournalEvent, RecordedEvent, RunHold, RunInput } from '@/lib/durable';

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

/** May kill the process (it never returns then) or act as an operator before the run goes on; `runId` is the held run's. */
export type BoundaryListener = (
  label: string,
  events: readonly JournalEvent[],
  loaded: readonly RecordedEvent[] | undefined,
  runId: string,
) => void | Promise<void>;

/**
 * Boundaries: `loaded` right after a hold's load (before its first append: where a resume has read the
 * journal and decided nothing yet), `before:<what>` and `after:<what>` around each append. Every other
 * method (the operator API, whatever the port grows) goes to the real journal as it is.
 */
export function boundaryJournal(journal: Journal, boundary: BoundaryListener): Journal {
  const around = async <T>(runId: string, events: readonly JournalEvent[], write: () => Promise<T>): Promise<T> => {
    const what = describeAppend(events);
    await boundary(`before:${what}`, events, undefined, runId);
    const recorded = await write();
    await boundary(`after:${what}`, events, undefined, runId);
    return recorded;
  };
  // A proxy, so members the port grows reach the real hold; the appends among them report their boundaries.
  const wrapHold = (real: RunHold, runId: string): RunHold =>
    new Proxy(real, {
      get(target, property) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        const method = value.bind(target) as (...args: unknown[]) => Promise<unknown>;
        if (property === 'load')
          return async () => {
            const events = (await method()) as RecordedEvent[];
            await boundary('loaded', [], events, runId);
            return events;
          };
        if (property === 'create') return (input: unknown) => around(runId, [{ type: 'run-start', input } as JournalEvent], () => method(input));
        if (property === 'append') return (events: readonly JournalEvent[]) => around(runId, events, () => method(events));
        if (property === 'appendAfter') return (lastSeq: number, events: readonly JournalEvent[]) => around(runId, events, () => method(lastSeq, events));
        return method;
      },
    });
  const hold = async (runId: string) => wrapHold(await journal.hold(runId), runId);
  // A run created without a hold (startRun's, a workflow's child's: journal.createRun) has the same boundaries as a hold's create.
  // Its `after` only when it wrote (undefined: the run existed, nothing was written).
  const realCreate = journal.createRun?.bind(journal);
  const createRun =
    realCreate &&
    (async (runId: string, input: RunInput, options?: Parameters<typeof realCreate>[2]) => {
      const events = [{ type: 'run-start', input } as JournalEvent];
      await boundary(`before:${describeAppend(events)}`, events, undefined, runId);
      const recorded = await realCreate(runId, input, options);
      if (recorded) await boundary(`after:${describeAppend(events)}`, events, undefined, runId);
      return recorded;
    });
  return new Proxy(journal, {
    get(target, property, receiver) {
      if (property === 'hold') return hold;
      if (property === 'createRun') return createRun;
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
