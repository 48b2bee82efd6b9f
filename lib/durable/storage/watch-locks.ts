/**
 * Who watches a run, known to its writer inside the append statement, so a NOTIFY goes out only while
 * someone listens (issue 31: no statement sent to nobody). Postgres only: PGlite's one connection
 * notifies inside the statement, at no extra statement.
 *
 * The registry is the server's lock table, not a table of rows: a row a listener inserts is invisible to
 * an append whose statement began before that commit, and the listener could then read the journal before
 * that append committed and never hear of it. Locks have no snapshot:
 * - a listener holds a shared session advisory lock on its run's watch key (a watcher of every run: on
 *   each of the EVERY_RUN_SLOTS slot keys) on its LISTEN connection for as long as it listens, taken after
 *   its LISTEN is active and before it reads what it missed;
 * - an append tries, inside its statement, the exclusive transaction lock on the run's key and on its
 *   session's slot key (the low bits of its backend pid). Granted: nobody watches, and a listener that
 *   comes now waits for the append's commit before it reads (its shared lock conflicts), so it reads the
 *   append. Refused: someone watches (or
 *   another writer of the same key is in flight, which costs one needless NOTIFY and nothing else), and
 *   the append is announced after commit as before (notifications.ts).
 * A try never waits, so a writer never blocks on a listener; a listener waits at most for the commits in
 * flight on its keys. The keys are two-int advisory keys in spaces of their own (run holds use bigint
 * keys: run-locks.ts), the run's key `hashtext(runId)`: two runs that share one only cost a NOTIFY.
 *
 * Why slots: with one key for "every run" (before), two appends of different runs in flight at once
 * collided on it and the second announced to nobody (issue 31: 29 NOTIFY statements for 10 runs at once,
 * `npx tsx bench/notify-unwatched.ts`; 4.75 a run on an executor of 4 slots). Now two appends in flight
 * collide only when their sessions' pids share their low 6 bits (a pool's sessions, opened together, have
 * consecutive pids: none measured). Slotting by run (its hash) was tried: 10 runs at once share a slot
 * more often than not (0–21 NOTIFY statements in the same bench). A watcher of every run also takes the
 * old every-run key (WATCH_KEY_SPACE, 0), so a writer of a GNL from before still sees it during a rolling
 * deploy; a watcher from before (that key alone) is not seen by a writer from now: upgrade listeners first.
 */

/** The first half of every watch key: no other two-int advisory lock of GNL uses it. */
export const WATCH_KEY_SPACE = 0x676e6c77; // 'gnlw'

/** What a listener watches: one run's events and stream, or every run's events (the Studio's runs list). */
export type WatchScope = { runId: string } | 'every-run';

/** The space of the slot keys a watcher of every run holds: a writer tries its session's (its backend pid's low bits). */
export const WATCH_SLOT_SPACE = 0x676e6c73; // 'gnls'

/** How many slot keys: two appends in flight at once wrongly see a watcher only when their sessions share one. */
export const EVERY_RUN_SLOTS = 64;

/** Inside a writer's statement: true when someone may be listening for `runId` (an SQL expression). */
export function watchedClause(runId: string): string {
  return `not (pg_try_advisory_xact_lock(${WATCH_KEY_SPACE}, hashtext(${runId})) and pg_try_advisory_xact_lock(${WATCH_SLOT_SPACE}, pg_backend_pid() & ${EVERY_RUN_SLOTS - 1}))`;
}

/** Inside a stream batch's statement: true when someone may be following that run's stream (it has no listener of every run). */
export function streamWatchedClause(runId: string): string {
  return `not pg_try_advisory_xact_lock(${WATCH_KEY_SPACE}, hashtext(${runId}))`;
}

/** The listener's statement that starts (`lock`) or ends (`unlock`) watching a scope, and its parameters. */
export function watchStatement(scope: WatchScope, action: 'lock' | 'unlock'): [text: string, params: string[]] {
  const fn = action === 'lock' ? 'pg_advisory_lock_shared' : 'pg_advisory_unlock_shared';
  if (scope !== 'every-run') return [`select ${fn}(${WATCH_KEY_SPACE}, hashtext($1::text))`, [scope.runId]];
  // Every slot, and the every-run key a writer of a GNL from before tries (one statement, the slots in order).
  return [`select ${fn}(${WATCH_SLOT_SPACE}, s) from generate_series(0, ${EVERY_RUN_SLOTS - 1}) as s union all select ${fn}(${WATCH_KEY_SPACE}, 0)`, []];
}

/** A scope as a map key. */
export function scopeKey(scope: WatchScope): string {
  return scope === 'every-run' ? 'every-run' : `run:${scope.runId}`;
}
