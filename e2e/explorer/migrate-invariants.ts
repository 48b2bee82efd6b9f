/**
 * The invariants of migrations (versions.ts), judged for every run from its journal's rows and the
 * schedule log (what the operator asked and how migrateRun answered; every real model request with the
 * system prompt it carried):
 *   - every migration migrateRun accepted is one run-migrate, with the operator, the reason, the version
 *     asked for, and `overridden` only when forced; no run-migrate nobody asked for;
 *   - a call finished before a migration never starts again after it (its result and key are kept);
 *   - every model request after an accepted migration is the new version's (its system prompt), and
 *     before any, the version the run was recorded on.
 */
import type { JournalRead, LogLine } from './protocol';
import { OPERATOR, SYSTEMS } from './versions';

type Check = (ok: boolean, violation: () => string) => void;
type Row = JournalRead['events'][number];

export function migrations(args: { journal: JournalRead; log: readonly LogLine[]; check: Check }): void {
  const { journal, log, check } = args;
  // A fork's copy of its parent's history holds the parent's migrations, not its own.
  const own = journal.events.filter((e) => !isCopied(journal, e));
  const journaled = own.filter((e) => e.type === 'run-migrate');
  const accepted = log.flatMap((l) => (l.kind === 'version' && l.op === 'migrate' && l.result === 'accepted' ? [l] : []));
  check(journaled.length === accepted.length, () => `${accepted.length} migrations accepted, ${journaled.length} run-migrate events journaled`);
  accepted.forEach((line, i) => {
    const event = journaled[i]?.payload;
    check(
      event !== undefined && event.by === OPERATOR && event.reason === line.reason && event.toVersion === line.version,
      () =>
        `the migration to ${line.to} accepted by process ${line.pid} is journaled as ${JSON.stringify(event && { by: event.by, reason: event.reason, toVersion: event.toVersion })}`,
    );
    if (!line.force)
      check(event?.overridden === undefined, () => `a migration made without force journaled overridden refusals: ${JSON.stringify(event?.overridden)}`);
  });
  for (const migrate of journaled) finishedStayFinished(journal.events, migrate, check);
  systemPrompts(journal, log, check);
}

/** No call that had a result before the run-migrate at `migrate.seq` starts again after it. */
function finishedStayFinished(events: readonly Row[], migrate: Row, check: Check): void {
  const finished = new Set(events.filter((e) => e.seq < migrate.seq && e.type === 'tool-call-end').map((e) => String(e.payload.toolCallId)));
  for (const e of events) {
    if (e.seq <= migrate.seq || e.type !== 'tool-call-start' || !finished.has(String(e.payload.toolCallId))) continue;
    check(false, () => `call ${e.payload.toolCallId}, finished before the migration at seq ${migrate.seq}, started again at seq ${e.seq}`);
  }
}

/** Each model request carries the system prompt of the version the run is on at that moment of the log. */
function systemPrompts(journal: JournalRead, log: readonly LogLine[], check: Check): void {
  // The version the run was recorded on before this log's processes: its run-start's (a fork's: its parent's, copied with any migration).
  const recorded = journal.events.filter((e) => e.type === 'run-start' || (e.type === 'run-migrate' && isCopied(journal, e)));
  let expected = (recorded.at(-1)?.payload.input as { system?: string } | undefined)?.system;
  // Not an agent of versions (its prompt is the scenario's, or a prepareStep's): nothing to compare with.
  if (expected === undefined) return;
  for (const line of log) {
    if (line.kind === 'version' && line.op === 'migrate' && line.result === 'accepted' && line.to) expected = SYSTEMS[line.to];
    if (line.kind !== 'model' || line.system === undefined) continue;
    const want = expected as string;
    check(
      line.system === want,
      () => `process ${line.pid} asked the model for step ${line.step} with the system prompt "${line.system}", not its version's "${want}"`,
    );
  }
}

/** A fork's copy of its parent's events: after its run-start, `forkOf.copiedEvents` of them. */
export function isCopied(journal: JournalRead, event: Row): boolean {
  const forkOf = (journal.events[0]?.payload.input as { forkOf?: { copiedEvents?: number } } | undefined)?.forkOf;
  return forkOf?.copiedEvents !== undefined && event.seq > 1 && event.seq <= 1 + forkOf.copiedEvents;
}
