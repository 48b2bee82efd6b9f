/**
 * Who watches a run, known to its writer inside the append statement, so a NOTIFY goes out only while
 * someone listens (issue 31: no statement sent to nobody). Postgres only: PGlite's one connection
 * notifies inside the statement, at no extra statement.
 *
 * The registry is the server's lock table, not a table of rows: a row a listener inserts is invisible to
 * an append whose statement began before that commit, and the listener could then read the journal before
 * that append committed and never hear of it. Locks have no snapshot:
 * - a listener holds a shared session advisory lock on its run's watch key (or on the key of every run)
 *   on its LISTEN connection for as long as it listens, taken after its LISTEN is active and before it
 *   reads what it missed;
 * - an append tries, inside its statement, the exclusive transaction lock on the run's key and on the key
 *   of every run. Granted: nobody watches, and a listener that comes now waits for the append's commit
 *   before it reads (its shared lock conflicts), so it reads the append. Refused: someone watches (or
 *   another writer of the same key is in flight, which costs one needless NOTIFY and nothing else), and
 *   the append is announced after commit as before (notifications.ts).
 * A try never waits, so a writer never blocks on a listener; a listener waits at most for the commits in
 * flight on its key. The keys are two-int advisory keys in a space of their own (run holds use bigint
 * keys: run-locks.ts), the run's key `hashtext(runId)`: two runs that share one only cost a NOTIFY.
 */

/** The first half of every watch key: no other two-int advisory lock of GNL uses it. */
export const WATCH_KEY_SPACE = 0x676e6c77; // 'gnlw'

/** What a listener watches: one run's events and stream, or every run's events (the Studio's runs list). */
export type WatchScope = { runId: string } | 'every-run';

/** Inside a writer's statement: true when someone may be listening for `runId` (an SQL expression). */
export function watchedClause(runId: string): string {
  return `not (pg_try_advisory_xact_lock(${WATCH_KEY_SPACE}, hashtext(${runId})) and pg_try_advisory_xact_lock(${WATCH_KEY_SPACE}, 0))`;
}

/** Inside a stream batch's statement: true when someone may be following that run's stream (it has no listener of every run). */
export function streamWatchedClause(runId: string): string {
  return `not pg_try_advisory_xact_lock(${WATCH_KEY_SPACE}, hashtext(${runId}))`;
}

/** The listener's statement that starts (`lock`) or ends (`unlock`) watching a scope, and its parameters. */
export function watchStatement(scope: WatchScope, action: 'lock' | 'unlock'): [text: string, params: string[]] {
  const fn = action === 'lock' ? 'pg_advisory_lock_shared' : 'pg_advisory_unlock_shared';
  return scope === 'every-run' ? [`select ${fn}(${WATCH_KEY_SPACE}, 0)`, []] : [`select ${fn}(${WATCH_KEY_SPACE}, hashtext($1::text))`, [scope.runId]];
}

/** A scope as a map key. */
export function scopeKey(scope: WatchScope): string {
  return scope === 'every-run' ? 'every-run' : `run:${scope.runId}`;
}
