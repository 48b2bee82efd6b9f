/**
 * One invocation of runDurable on a held run: the journal's view (RunState), the hold to append
 * through, and what this invocation found waiting. Shared by the recording model, the tool gate and
 * the journaled tools. A journal failure anywhere is fatal for the invocation: it is kept here,
 * the loop stops at the next boundary, and runDurable rethrows it (it must never reach the model
 * as a tool error).
 */
import { JournalDataError } from './errors';
import type { JournalEvent, PendingItem, RecordedEvent } from './events';
import type { RunHold } from './journal';
import type { RunState } from './run-state';

export class RunSession {
  /** Index of the next model call in this run. */
  nextStep = 0;
  replayedSteps = 0;
  /** Approval questions this invocation leaves open. */
  readonly waiting: Extract<PendingItem, { kind: 'approval' }>[] = [];
  /** Side effects of unknown outcome this invocation cannot settle. */
  readonly blocked: Extract<PendingItem, { kind: 'side-effect' }>[] = [];
  /** Executions in progress per idempotency key: parallel calls with equal 'args' share one. */
  readonly inFlight = new Map<string, Promise<unknown>>();
  fatal: unknown;

  constructor(
    readonly runId: string,
    readonly hold: RunHold,
    readonly state: RunState,
  ) {}

  async append(...events: JournalEvent[]): Promise<RecordedEvent[]> {
    this.throwIfFatal();
    try {
      const recorded = await this.hold.append(events);
      for (const event of recorded) this.state.apply(event);
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
  readonly mustStop = (): boolean => this.fatal !== undefined || this.blocked.length > 0;
}
