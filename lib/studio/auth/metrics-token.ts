/**
 * GNL_METRICS_TOKEN: the bearer token a Prometheus scraper sends to /api/metrics instead of a session
 * (`Authorization: Bearer <token>`), compared in constant time. Unset or blank: only a signed-in operator
 * reads the metrics. Plain node:crypto: the proxy and the route both check it.
 */
import { secretsEqual } from './security-compare';

type Env = Record<string, string | undefined>;

/** The configured token, or undefined; a token under 16 characters is refused with a clear error. */
export function metricsToken(env: Env = process.env): string | undefined {
  const token = env.GNL_METRICS_TOKEN?.trim();
  if (!token) return undefined;
  if (token.length < 16) throw new TypeError('GNL_METRICS_TOKEN must be at least 16 characters (a scraper’s bearer token).');
  return token;
}

/** Whether a request's Authorization header carries the metrics token (false when none is configured). */
export function bearerMatches(authorization: string | null | undefined, env: Env = process.env): boolean {
  const token = metricsToken(env);
  if (!token || !authorization?.startsWith('Bearer ')) return false;
  return secretsEqual(authorization.slice('Bearer '.length), token);
}
