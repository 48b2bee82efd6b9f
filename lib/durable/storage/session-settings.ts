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
