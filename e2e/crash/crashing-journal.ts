/**
 * A decorator around a REAL journal that SIGKILLs the process right after an append containing a chosen
 * event has committed. It does not fake storage: every call goes to the real journal, and the process
 * dies only once the real append resolved (the event is durable, the next thing has not happened).
 */
import type { Journal, JournalEvent, RunHold, RunInput } from '@/lib/durable';

/** 'model-step:1' matches a model-step event of step 1; 'tool-call-end:refund' a tool-call-end of refund; 'run-resume' any run-resume. */
export function eventMatcher(spec: string): (event: JournalEvent) => boolean {
  const [type, selector] = spec.split(':') as [string, string | undefined];
  return (event) => {
    if (event.type !== type) return false;
    if (selector === undefined) return true;
    if (event.type === 'model-step') return String(event.step) === selector;
    return 'toolName' in event && event.toolName === selector;
  };
}

export interface CrashingJournalOptions {
  /** The event to die right after (see eventMatcher); undefined: never die. */
  dieAfter?: string;
  die: (why: string) => never;
  /** Called right before each real append begins (so a killer outside can aim inside it). */
  beforeAppend?: (events: readonly JournalEvent[]) => void;
  /** Called right after each real append committed, before the crash check. */
  afterAppend?: (events: readonly JournalEvent[]) => void;
}

export function crashingJournal(journal: Journal, options: CrashingJournalOptions): Journal {
  const { dieAfter, die, beforeAppend, afterAppend } = options;
  const matches = dieAfter === undefined ? () => false : eventMatcher(dieAfter);
  const committed = (events: readonly JournalEvent[]) => {
    afterAppend?.(events);
    if (events.some(matches)) die(`after:${dieAfter} committed`);
  };
  const wrapHold = (hold: RunHold): RunHold => ({
    get runId() {
      return hold.runId;
    },
    load: () => hold.load(),
    create: async (input) => {
      const events: JournalEvent[] = [{ type: 'run-start', input }];
      beforeAppend?.(events);
      const recorded = await hold.create(input);
      committed(events);
      return recorded;
    },
    append: async (events) => {
      beforeAppend?.(events);
      const recorded = await hold.append(events);
      committed(events);
      return recorded;
    },
    appendAfter: async (lastSeq, events) => {
      beforeAppend?.(events);
      const recorded = await hold.appendAfter(lastSeq, events);
      committed(events);
      return recorded;
    },
    appendStream: (batch) => hold.appendStream(batch),
    release: () => hold.release(),
    get canceled() {
      return hold.canceled;
    },
  });
  return {
    runIdOf: (runId) => journal.runIdOf(runId),
    hold: async (runId) => wrapHold(await journal.hold(runId)),
    approve: (request) => journal.approve(request),
    reject: (request) => journal.reject(request),
    resolveSideEffect: (request) => journal.resolveSideEffect(request),
    provideToolResult: (request) => journal.provideToolResult(request),
    cancel: (request) => journal.cancel(request),
    requestResume: (request) => journal.requestResume(request),
    fork: (request) => journal.fork(request),
    recordRestart: (request) => journal.recordRestart(request),
    sendEvent: (request) => journal.sendEvent(request),
    importRun: (request) => journal.importRun(request),
    getRun: (runId) => journal.getRun(runId),
    listRuns: (options) => journal.listRuns(options),
    events: (runId, options) => journal.events(runId, options),
    // A run created without a hold (startRun's): the same crash points as a hold's create, when it wrote.
    ...(journal.createRun
      ? {
          createRun: async (runId: string, input: RunInput, options?: Parameters<NonNullable<Journal['createRun']>>[2]) => {
            const events: JournalEvent[] = [{ type: 'run-start', input }];
            beforeAppend?.(events);
            const recorded = await (journal.createRun as NonNullable<Journal['createRun']>)(runId, input, options);
            if (recorded) committed(events);
            return recorded;
          },
        }
      : {}),
  };
}
