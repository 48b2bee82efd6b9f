/**
 * How long a connection waits before it is opened again after an attempt failed (postgres.js `backoff`,
 * in seconds, given the count of failed attempts since the last success).
 *
 * postgres.js's own default grows as 3^n / 100 s up to 20 s, and its count is shared by every connection
 * of a client. A worker's own statements drive it up: with the server down, its claim polls and
 * heartbeats fail in a few seconds often enough to reach the 20 s ceiling, and then every statement (an
 * append, a lease release) waits 10-20 s for its connection before it even tries. Measured with a fault
 * worker (e2e/faults/server-restart.test.ts, the stopped server): invocations inside a tool call needed
 * 11 s to 43 s to learn that their append had failed, and the workers went on waiting up to 20 s after
 * the server was back. GNL paces its own retries (the executor's poll, a journal error's retry delay),
 * so the driver's wait is capped at MAX_RECONNECT_BACKOFF_S: a refused connection is known within a
 * second, and a server that is back is used within a second. clientOptions.backoff still wins.
 */

/** The longest wait before a connection is tried again, in seconds. */
export const MAX_RECONNECT_BACKOFF_S = 1;

/** postgres.js's curve and jitter (a half to the whole of the step), capped at MAX_RECONNECT_BACKOFF_S. */
export function reconnectBackoff(retries: number, random: () => number = Math.random): number {
  return (0.5 + random() / 2) * Math.min(3 ** retries / 100, MAX_RECONNECT_BACKOFF_S);
}
