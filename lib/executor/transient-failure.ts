/**
 * Whether a failed invocation may succeed if tried again later, untouched: the run-level retry's one
 * question (retry-after-failure.ts). Decided by the errors' classes and fields, never their messages:
 *   transient   the provider unreachable (ECONNREFUSED, ECONNRESET, ETIMEDOUT, a DNS failure: the SDK
 *               wraps them as a retryable APICallError), a 5xx / 408 / 409 / 429 (APICallError.isRetryable),
 *               the SDK's own retries used up on one of those (RetryError), a timeout (TimeoutError);
 *   never       a tool's own error (ToolCallFailedError), any GNL error (divergence, a blocked side effect,
 *               a cancel, bad data), a 4xx the SDK calls final, anything unrecognised.
 * A journal that is briefly gone is no failure of the run: the executor gives such an invocation back
 * (invoke-run.ts, 'journal-error') and it is claimed again, outside this policy.
 */
import { APICallError, RetryError } from 'ai';
import { GnlError } from '@/lib/durable';

/** System error codes of a connection that could not be made or was cut (node's net and undici). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

const MAX_DEPTH = 8;

export function isTransientFailure(error: unknown, depth = 0): boolean {
  if (depth > MAX_DEPTH || error === null || typeof error !== 'object') return false;
  // A GNL error says what happened to the run (a tool failed, the run diverged, was canceled, …): final.
  if (GnlError.isInstance(error)) return false;
  if (RetryError.isInstance(error)) return error.reason === 'maxRetriesExceeded' || isTransientFailure(error.lastError, depth + 1);
  if (APICallError.isInstance(error)) return error.isRetryable;
  const { name, code, cause } = error as { name?: unknown; code?: unknown; cause?: unknown };
  if (name === 'TimeoutError') return true;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  if (error instanceof AggregateError) return error.errors.length > 0 && error.errors.every((e) => isTransientFailure(e, depth + 1));
  return isTransientFailure(cause, depth + 1);
}
