/**
 * Per-token rate limit: a token bucket per token id in this process. `GNL_API_RATE_PER_SECOND` (default
 * 20) refills it, `GNL_API_RATE_BURST` (default 60) is its size. Past it a call is refused with 429 and
 * Retry-After. Per process: behind several servers a token gets each server's allowance (docs/api.md).
 */
export interface RateLimit {
  /** Takes one call from `key`'s bucket: 0 when allowed, else the seconds to wait. */
  take(key: string, now?: number): number;
}

/** Unset or blank: the default. Anything but a positive number is refused, naming the variable (a typo must not lift the limit's meaning silently). */
function setting(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of calls, got "${raw}"`);
  return n;
}

export function rateLimitFromEnv(env: Record<string, string | undefined> = process.env): RateLimit {
  return tokenBuckets({ perSecond: setting(env, 'GNL_API_RATE_PER_SECOND', 20), burst: setting(env, 'GNL_API_RATE_BURST', 60) });
}

export function tokenBuckets(options: { perSecond: number; burst: number }): RateLimit {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, now = Date.now()) {
      const bucket = buckets.get(key) ?? { tokens: options.burst, at: now };
      bucket.tokens = Math.min(options.burst, bucket.tokens + ((now - bucket.at) / 1000) * options.perSecond);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil((1 - bucket.tokens) / options.perSecond);
    },
  };
}
