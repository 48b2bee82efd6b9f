/**
 * One invocation of runDurable on a held run: the journal's view (RunState), the hold to append
 * through, and what this invocation found waiting. Shared by the recording model, the tool gate and
 * the journaled tools. A journal failure anywhere is fatal for the invocation: it is kept here,
 * the loop stops at the next boundary, and runDurable rethrows it (it must never reach the model
 * as a tool error).
 */
import {
  GnlError,
  HoldLostError,
  JournalDataError,
  RunDivergedError,
  RunEventLimitError,
  type SideEffectElsewhereError,
  type ToolCallFailedError,
} from '../errors';
import { encodeEventParts, MAX_EVENTS_PER_RUN } from '../journal/event-limit';
import type { JournalEvent, PendingItem, RecordedEvent } from '../journal/events';
import type { RunHold } from '../journal/journal';
import type { PromptTail } from '../model/prompt-tail';
import { RequestHasher } from '../model/request-hash';
import { isAppliedMeanwhile, recordsOutcome, type RunState } from '../projection/run-state';
import type { InvocationTrace } from '../telemetry/tracing';
import type { RelatedEffect } from '../tools/related-effects';
import { OutcomeRoom } from './outcome-room';

/** How long an invocation keeps trying to record a finished tool's outcome while the database is away (runDurable's recordOutcomeWithinMs). */
export const DEFAULT_RECORD_OUTCOME_WITHIN_MS = 30_000;

/**
 * A failure that may pass once the database is back: the hold lost (HoldLostError), or a driver's or the
 * network's error (no GnlError: the core knows no driver's codes). Every other GnlError is GNL's own
 * answer (busy, moved, erased, retired, bad data) and final.
 */
function holdOrDatabaseAway(error: unknown): boolean {
  return HoldLostError.isInstance(error) || !GnlError.isInstance(error);
}

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
  /**
   * A tool threw (ToolCallFailedError, the tool's error as its cause), or a call repeats work of unknown
   * outcome in another run of the job (SideEffectElsewhereError): the run fails with it after the step's other calls settle.
   */
  failure: ToolCallFailedError | SideEffectElsewhereError | undefined;
  /** Model steps answered from the journal in this invocation (by step number). */
  readonly replayedSteps = new Set<number>();
  /** Hashes this invocation's model calls, each message once (request-hash.ts). */
  readonly requestHasher = new RequestHasher();
  /** Which recorded steps are given only the tail of their prompt (prompt-tail.ts); unset when the caller's options read it. */
  promptTail: PromptTail | undefined;
  private readonly mismatched = new Set<string>();
  /** A new model step waiting to ride with the next append (defer). */
  private deferred: JournalEvent | undefined;
  /** The append that carries a deferred event, while it is in flight. */
  private carrying: Promise<RecordedEvent[]> | undefined;
  /** The side effects of the job's other runs, read at each call (related-effects.ts); unset for a run with none. */
  related: (() => Promise<RelatedEffect[]>) | undefined;
  /** The job this run belongs to when it has other runs (job-lock.ts), else undefined; asked at each side effect. */
  job: (() => Promise<string | undefined>) | undefined;
  /** This invocation's spans (tracing.ts): no-ops without a tracer provider. */
  trace: InvocationTrace | undefined;
  /** Work through the door before the run's completion is recorded (a memory option's append of the turn, run-memory.ts). */
  beforeCompletion: ((result: { text: string }) => Promise<void>) | undefined;
  /** The events-per-run limit, with room kept for side effects' outcomes (outcome-room.ts). */
  private readonly room: OutcomeRoom;
  /**
   * Takes the run's hold again (the journal's `hold`), for an outcome this invocation knows but could not
   * record because its hold or its database went away (retakeToRecord). Unset: such an invocation stops.
   */
  retake: (() => Promise<RunHold>) | undefined;
  /** How long retakeToRecord keeps trying while the database is away. */
  retakeWithinMs = DEFAULT_RECORD_OUTCOME_WITHIN_MS;

  constructor(
    readonly runId: string,
    /** The hold appends go through: replaced when the invocation takes it again (retakeToRecord). */
    public hold: RunHold,
    readonly state: RunState,
    /** A replayed call that differs from its record is fatal (RunDivergedError) instead of journaled. */
    readonly strictReplay = false,
    /** The run's events-per-run limit (event-limit.ts): an append past it is fatal, nothing written. */
    readonly maxEvents = MAX_EVENTS_PER_RUN,
  ) {
    this.room = new OutcomeRoom(runId, maxEvents);
  }

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

  /**
   * Journals `event` with the next append, in the same statement, before that append's own events: a
   * new model step rides with what follows it (its first call's start, an approval question, the run's
   * completion), so a step and the start of the side effect it asks for cost one round trip and one
   * commit, not two. Nothing has acted on the step until that append: a crash before it loses only a
   * model answer, asked again on resume. A side effect's start is an append, so it carries the step;
   * the next model call flushes a step nothing carried (recording-model.ts), so steps stay in order.
   */
  defer(event: JournalEvent): void {
    this.throwIfFatal();
    if (this.deferred) throw new JournalDataError(`Run "${this.runId}": a ${event.type} event was deferred while a ${this.deferred.type} waited.`);
    // Refused now if it could never be journaled (too large, not encodable): the caller handles it as an append's refusal.
    encodeEventParts(event);
    this.deferred = event;
  }

  /** Journals the deferred event now, if one waits (and waits for the append carrying one). */
  async flush(): Promise<void> {
    if (this.deferred) await this.append();
    else await this.carrying?.catch(() => undefined);
  }

  /** Appends `events` (after a deferred event, if one waits); resolves with the records of `events`. */
  async append(...events: JournalEvent[]): Promise<RecordedEvent[]> {
    // A side effect that started before the run reached its limit still records its outcome, in the room kept for it.
    const keptRoom = this.room.keptFor(events);
    const throwIfFatal = () => {
      if (!(keptRoom && RunEventLimitError.isInstance(this.fatal))) this.throwIfFatal();
    };
    throwIfFatal();
    // An append racing the one that carries a deferred step (parallel calls of that step) waits for it:
    // a call's start is never recorded before the step that asked for it.
    if (!this.deferred && this.carrying) await this.carrying.catch(() => undefined);
    throwIfFatal();
    const carried = this.deferred;
    this.deferred = undefined;
    const all = carried ? [carried, ...events] : events;
    if (all.length === 0) return [];
    const writing = this.write(all);
    if (carried) this.carrying = writing;
    try {
      const recorded = await writing;
      return carried ? recorded.slice(1) : recorded;
    } catch (error) {
      // Refused before anything was written (the caller's events could not be encoded): the step waits
      // for the next append again, so whatever the caller records instead (the call's error) carries it.
      if (carried && JournalDataError.isInstance(error) && this.fatal === undefined && !this.deferred) this.deferred = carried;
      throw error;
    }
  }

  private async write(events: JournalEvent[]): Promise<RecordedEvent[]> {
    let settle: (written: boolean) => void;
    try {
      settle = this.room.take(events, this.state.lastSeq);
    } catch (error) {
      this.fatal ??= error; // RunEventLimitError: nothing was written
      throw error;
    }
    try {
      const recorded = await this.hold.append(events);
      await this.applyJobLinksMadeMeanwhile(recorded);
      for (const event of recorded) this.state.apply(event);
      settle(true);
      // Canceled from anywhere: the append said so. Stop at the step boundary; run no other tool.
      if (this.hold.canceled) this.canceled = true;
      return recorded;
    } catch (error) {
      // A tool that ran, its outcome known here: a dropped hold or a database away for a moment is no
      // reason to hand it to a person. Taken again and written after what this invocation last saw, or not at all.
      const retaken =
        this.retake && this.hold.losable === true && events.some(recordsOutcome) && holdOrDatabaseAway(error) ? await this.retakeToRecord(events) : undefined;
      if (retaken) {
        for (const event of retaken) this.state.apply(event);
        settle(true);
        if (this.hold.canceled) this.canceled = true;
        return retaken;
      }
      settle(false);
      // Data that cannot be encoded was refused before anything was written: the caller decides.
      // Anything else leaves the journal's state unknown, so this invocation must stop.
      if (!JournalDataError.isInstance(error)) this.fatal ??= error;
      throw error;
    }
  }

  /**
   * After a write of a tool's outcome failed (its hold lost: the database restarted or ended the session;
   * or the database unreachable): gives the old hold back, takes the run's hold again (retrying while the
   * database is away, for at most retakeWithinMs) and appends `events` only if nothing was appended since
   * this invocation's last event (RunHold.appendAfter). Undefined when that cannot be: another process
   * holds the run (RunBusyError) or wrote to it since (RunMovedError; the failed write itself, committed
   * after all, counts), or the database stayed away. Then the invocation stops as before, and whoever runs
   * the run next finds the call started without an end (its check, or a person, decides).
   */
  private async retakeToRecord(events: JournalEvent[]): Promise<RecordedEvent[] | undefined> {
    const retake = this.retake;
    if (!retake) return undefined;
    await this.hold.release().catch(() => undefined);
    const deadline = Date.now() + this.retakeWithinMs;
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      let hold: RunHold | undefined;
      try {
        hold = await retake();
        const recorded = await hold.appendAfter(this.state.lastSeq, events);
        this.hold = hold;
        return recorded;
      } catch (error) {
        await hold?.release().catch(() => undefined);
        // Another holder (RunBusyError), another writer (RunMovedError), an erased or retired run: final.
        if (!holdOrDatabaseAway(error) || Date.now() + pause > deadline) return undefined;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Resolves once no tool call is executing: each one started has its outcome journaled (or has thrown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Someone else appended to this run since this invocation last did (the seqs skip): a fork or a restart
   * made of it meanwhile is the job's (its side effects count for this run's: related-effects.ts), so its
   * run-forked or run-restarted is applied here, in order. Other appends to an executing run are refused, or read as their own flags
   * (a cancel: the hold's). Rare: a load only when the seqs skip.
   */
  private async applyJobLinksMadeMeanwhile(recorded: readonly RecordedEvent[]): Promise<void> {
    const first = recorded[0]?.seq;
    const last = this.state.lastSeq;
    if (first === undefined || first <= last + 1) return;
    const meanwhile = (await this.hold.load()).filter((event) => event.seq > last && event.seq < first && isAppliedMeanwhile(event));
    for (const event of meanwhile) this.state.apply(event);
  }

  /**
   * Takes into the state what was appended from anywhere since this invocation last appended (events sent
   * to a workflow, job links): a workflow's wait reads them before it decides to sleep. One read.
   */
  async catchUp(read: (afterSeq: number) => Promise<RecordedEvent[]>): Promise<void> {
    const last = this.state.lastSeq;
    for (const event of await read(last)) if (event.seq > last && isAppliedMeanwhile(event)) this.state.apply(event);
  }

  throwIfFatal(): void {
    if (this.fatal !== undefined) throw this.fatal;
  }

  /** Stop condition: halt after the current step's tools settle, before another model call. */
  readonly mustStop = (): boolean => this.canceled || this.fatal !== undefined || this.failure !== undefined || this.blocked.length > 0;
}
