/**
 * Room under a run's events-per-run limit is kept for a side effect's outcome before it executes: an
 * append holding a side effect's start must leave one event for that call's end (or error), and one for
 * every other call this invocation started that is still waiting for its own. Otherwise the refund would
 * run with nowhere to record that it did, and the next resume would find an unknown outcome (blocked).
 * Appends of parallel calls are in flight together, so each is checked and its room taken before it is
 * sent, counting what the others are writing. An outcome that has its room is written even after another
 * append hit the limit (RunSession.append).
 */
import { assertEventRoom } from '../journal/event-limit';
import type { JournalEvent } from '../journal/events';
import { outcomeChanges } from '../projection/run-plan';

export class OutcomeRoom {
  /** Keys of side effects started (or being started) whose outcome is not written yet: each holds one event. */
  private readonly waiting = new Set<string>();
  /** Events of appends in flight (sent, not yet in the run's lastSeq). */
  private writing = 0;

  constructor(
    private readonly runId: string,
    private readonly limit: number,
  ) {}

  /**
   * Takes room for `events` on a run of `lastSeq` events, or throws RunEventLimitError. The answer is
   * called once the append settles, right after the run's state applied what it wrote (or not, when
   * nothing was written).
   */
  take(events: readonly JournalEvent[], lastSeq: number): (written: boolean) => void {
    const { starts, outcomes } = outcomeChanges(events);
    const after = new Set([...this.waiting, ...starts]);
    for (const key of outcomes) after.delete(key);
    assertEventRoom({ runId: this.runId, events: lastSeq + this.writing, adding: events.length, reserved: after.size, limit: this.limit });
    // An outcome in flight is counted in `writing`: its key stops holding room now, and holds it again if it is not written.
    const ending = outcomes.filter((key) => this.waiting.has(key));
    for (const key of ending) this.waiting.delete(key);
    for (const key of starts) this.waiting.add(key);
    this.writing += events.length;
    return (written) => {
      this.writing -= events.length;
      if (written) return;
      for (const key of starts) this.waiting.delete(key);
      for (const key of ending) this.waiting.add(key);
    };
  }

  /** Every one of `events` is the outcome of a side effect waiting for it: its room was kept. */
  keptFor(events: readonly JournalEvent[]): boolean {
    const { outcomes } = outcomeChanges(events);
    return events.length > 0 && outcomes.length === events.length && outcomes.every((key) => this.waiting.has(key));
  }
}
