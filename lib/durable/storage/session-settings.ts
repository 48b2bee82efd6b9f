/**
 * What the sessions that are idle by design (the hold session, the listener) need from the server.
 *
 * `idle_session_timeout` (Postgres 14+, often set per role or database on managed Postgres) ends any
 * session idle for longer, and with the hold session it would end every hold of the process in the
 * middle of a long tool or model call. These sessions turn it off for themselves with set_config inside
 * a statement they run anyway, rather than as a startup parameter: a startup parameter would also
 * outrank the role's setting, but a server older than 14 refuses to start a session with a parameter it
 * does not know, and pgbouncer (even in session mode) refuses startup parameters it does not track; and
 * the setting must be on the very session that holds the lock, which after a reconnect is a new one.
 * A session-level set_config outranks ALTER ROLE / ALTER DATABASE settings (they are only defaults).
 */

/** A scalar SQL expression that sets this session's idle_session_timeout to 0 where the server has one. */
export const EXEMPT_FROM_IDLE_TIMEOUT = `(select count(set_config(name, '0', false)) from pg_settings where name = 'idle_session_timeout')`;

/** Default interval of the keep-alive statement on the hold session and the listener. */
export const DEFAULT_KEEP_ALIVE_MS = 30_000;

/** TCP keepalive (postgres.js `keep_alive`, seconds) when clientOptions gives none. postgres.js's own default, made explicit. */
export const DEFAULT_TCP_KEEP_ALIVE_S = 60;

/**
 * What the pool's sessions (`gnl`: every append, decision and queue write) set for themselves in the
 * startup options, whatever the server, database or role default says (`options -c` outranks ALTER
 * DATABASE / ALTER ROLE … SET, which are only defaults):
 * - `synchronous_commit=on`: a commit is acknowledged once it is flushed to disk (and, where
 *   synchronous_standby_names names standbys, on them too). Under `off` an acknowledged append, a
 *   side effect's `tool-call-start` among them, could vanish in a server crash, and the call run again.
 *   `on`, not `local`: with synchronous standbys a failover must not lose an acknowledged start either.
 *   `remote_apply` adds only that a standby's readers see the commit; GNL reads the primary.
 * - `default_transaction_isolation=read committed`: GNL's statements (the append's fence, FOR UPDATE
 *   SKIP LOCKED claims, decisions under the row lock) are written for it; a stricter default turns their
 *   lock waits into serialization failures that nothing retries.
 * Defaults that make writes fail loudly (default_transaction_read_only, statement_timeout) are left to
 * the DBA: they stop GNL, they cannot make it lose or repeat work.
 */
export const DURABLE_SESSION_OPTIONS = String.raw`-c synchronous_commit=on -c default_transaction_isolation=read\ committed`;

/** synchronous_commit values under which an acknowledged commit survives a crash of the server. */
export const DURABLE_COMMIT_LEVELS: readonly string[] = ['on', 'remote_apply', 'remote_write', 'local'];
