/**
 * Per-token rate limit: a token bucket per token id in this process. `GNL_API_RATE_PER_SECOND` (default
 * 20) refills it, `GNL_API_RATE_BURST` (default 60) is its size. Past it a call is refused with 429 and
 * Retry-After. Per process: behind several servers a token gets each server's allowance (docs/api.md).
 */
export interface RateLimit {
  /** Takes one call from `key`'s bucket: 0 when allowed, else the seconds to wait. */
  take(key: string, now?: number): number;
}

function setting(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const n = Number(env[name]);
  return Number.isFinite(n) && n > 0 ? n : fallback;
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
