/**
 * An agent's run-level retry policy: how often the executor resumes a run that failed on a transient
 * error (the provider unreachable, a 5xx or 429 past the SDK's own retries, a timeout), and how long it
 * waits between attempts: exponential backoff with jitter, capped. The SDK's `maxRetries` retries one
 * model call within an invocation; this retries the invocation, later, from the journal.
 */
import { z } from 'zod';

export interface RetryPolicy {
  /** Invocations tried automatically in a row, the first failing one included; 1: never retried. Default 5. */
  attempts: number;
  /** The wait before the second attempt; each further one waits twice as long. Default 5 000 ms. */
  initialDelayMs: number;
  /** No wait is longer. Default 300 000 ms (5 minutes). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({ attempts: 5, initialDelayMs: 5_000, maxDelayMs: 300_000 });

export const retryPolicySchema = z
  .strictObject({
    attempts: z.number().int().min(1).max(100).optional(),
    initialDelayMs: z.number().int().min(0).max(86_400_000).optional(),
    maxDelayMs: z.number().int().min(0).max(86_400_000).optional(),
  })
  .refine((p) => (p.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs) >= (p.initialDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs), {
    message: 'maxDelayMs must be at least initialDelayMs',
  });

export type RetryPolicyInput = z.input<typeof retryPolicySchema>;

/** The policy with its defaults filled in (the input was checked by defineAgent). */
export function resolveRetryPolicy(input: RetryPolicyInput | undefined): RetryPolicy {
  return Object.freeze({ ...DEFAULT_RETRY_POLICY, ...Object.fromEntries(Object.entries(input ?? {}).filter(([, v]) => v !== undefined)) });
}

/**
 * The wait after failed attempt `attempt` (1, 2, …): initialDelayMs · 2^(attempt−1), capped at maxDelayMs,
 * then "equal jitter": half of it fixed, the other half random, so runs that failed together do not
 * all come back at the same instant. `random` is Math.random unless a test gives its own.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base / 2 + (base / 2) * random());
}
