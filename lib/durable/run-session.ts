/**
 * One invocation of runDurable on a held run: the journal's view (RunState), the hold to append
 * through, and what this invocation found waiting. Shared by the recording model, the tool gate and
 * the journaled tools. A journal failure anywhere is fatal for the invocation: it is kept here,
 * the loop stops at the next boundary, and runDurable rethrows it (it must never reach the model
 * as a tool error).
 */
import { JournalDataError, RunDivergedError, type ToolCallFailedError } from './errors';
import { assertEventRoom, MAX_EVENTS_PER_RUN } from './event-limit';
import type { JournalEvent, PendingItem, RecordedEvent } from './events';
import type { RunHold } from './journal';
import type { RunState } from './run-state';

export class RunSession {
  /** The loop's current step (runDurable's prepareStep sets it before each model call; retries of a call keep it). */
  stepNumber = 0;
  /** Approval questions this invocation leaves open. */
  readonly waiting: Extract<PendingItem, { kind: 'approval' }>[] = [];
  /** Calls to tools without execute that wait for a result provided through the journal. */
  readonly waitingResults: Extract<PendingItem, { kind: 'tool-result' }>[] = [];
  /** Per key, the attempts recorded when the gate let its call execute (a later attempt means a twin acted since). */
  readonly cleared = new Map<string, number>();
  /** Side effects of unknown outcome this invocation cannot settle. */
  readonly blocked: Extract<PendingItem, { kind: 'side-effect' }>[] = [];
  /** Executions in progress per idempotency key: parallel calls with equal 'args' share one. */
  readonly inFlight = new Map<string, Promise<unknown>>();
  fatal: unknown;
  /** The run was canceled (journal.cancel) while this invocation executed it. */
  canceled = false;
  /** A tool threw: the run fails after the step's other calls settle. */
  failure: ToolCallFailedError | undefined;
  /** Model steps answered from the journal in this invocation (by step number). */
  readonly replayedSteps = new Set<number>();
  private readonly mismatched = new Set<string>();

  constructor(
    readonly runId: string,
    readonly hold: RunHold,
    readonly state: RunState,
    /** A replayed call that differs from its record is fatal (RunDivergedError) instead of journaled. */
    readonly strictReplay = false,
    /** The run's events-per-run limit (event-limit.ts): an append past it is fatal, nothing written. */
    readonly maxEvents = MAX_EVENTS_PER_RUN,
  ) {}

  /** Journals a replay that asks differently from what was recorded (once per subject); fatal with strictReplay. */
  async replayMismatch(event: Extract<JournalEvent, { type: 'replay-mismatch' }>, field: string): Promise<void> {
    if (this.strictReplay) {
      const error = new RunDivergedError({ runId: this.runId, differences: [{ field, recorded: event.recorded, given: event.given }], replay: true });
      this.fatal ??= error;
      throw error;
    }
    const subject = `${event.kind}:${event.step ?? event.toolCallId}`;
    if (this.mismatched.has(subject)) return;
    this.mismatched.add(subject);
    await this.append(event);
  }

  async append(...events: JournalEvent[]): Promise<RecordedEvent[]> {
    this.throwIfFatal();
    try {
      assertEventRoom({ runId: this.runId, events: this.state.lastSeq, adding: events.length, limit: this.maxEvents });
      const recorded = await this.hold.append(events);
      for (const event of recorded) this.state.apply(event);
      // Canceled from anywhere: the append said so. Stop at the step boundary; run no other tool.
      if (this.hold.canceled) this.canceled = true;
      return recorded;
    } catch (error) {
      // Data that cannot be encoded was refused before anything was written: the caller decides.
      // Anything else leaves the journal's state unknown, so this invocation must stop.
      if (!JournalDataError.isInstance(error)) this.fatal ??= error;
      throw error;
    }
  }

  throwIfFatal(): void {
    if (this.fatal !== undefined) throw this.fatal;
  }

  /** Stop condition: halt after the current step's tools settle, before another model call. */
  readonly mustStop = (): boolean => this.canceled || this.fatal !== undefined || this.failure !== undefined || this.blocked.length > 0;
}
