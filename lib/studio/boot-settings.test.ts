/** The Studio's settings checked at start (boot.ts checkStudioSettings): a wrong one is named, so the start stops with it. */
import { describe, expect, it } from 'vitest';
import { checkStudioSettings } from './boot';
import { studioLeaseFromEnv } from './executor-lease';

describe('the Studio checks its settings at start', () => {
  it('accepts what is unset or right', () => {
    expect(checkStudioSettings({})).toBeUndefined();
    expect(checkStudioSettings({ GNL_TRACE_URL: 'https://traces.example.com/trace/{traceId}', GNL_RETENTION_DAYS: '30' })).toBeUndefined();
    expect(checkStudioSettings({ GNL_STUDIO_LEASE_MS: '5000' })).toBeUndefined();
    expect(checkStudioSettings({ GNL_API_RATE_PER_SECOND: '5', GNL_API_RATE_BURST: ' ' })).toBeUndefined();
  });

  it("reads its executor's lease: unset is the executor's default, a value is taken as given", () => {
    expect(studioLeaseFromEnv({})).toEqual({});
    expect(studioLeaseFromEnv({ GNL_STUDIO_LEASE_MS: ' ' })).toEqual({});
    expect(studioLeaseFromEnv({ GNL_STUDIO_LEASE_MS: '5000' })).toEqual({ leaseMs: 5000 });
    expect(studioLeaseFromEnv({ GNL_STUDIO_LEASE_MS: '3600000' })).toEqual({ leaseMs: 3_600_000 });
    const wrong = (() => {
      try {
        studioLeaseFromEnv({ GNL_STUDIO_LEASE_MS: '30s' });
      } catch (error) {
        return error;
      }
    })();
    expect(wrong).toBeInstanceOf(Error);
    expect((wrong as Error).cause).toBeDefined();
  });

  it.each([
    [{ GNL_TRACE_URL: 'javascript:alert(1)//{traceId}' }, /^GNL_TRACE_URL must be an http\(s\) URL/],
    [{ GNL_TRACE_URL: 'https://traces.example.com/' }, /^GNL_TRACE_URL must contain \{traceId\}/],
    [{ GNL_RETENTION_DAYS: '0' }, /^GNL_RETENTION_DAYS must be a whole number/],
    [{ GNL_API_RATE_PER_SECOND: 'twenty' }, /^GNL_API_RATE_PER_SECOND must be a positive number of calls, got "twenty"$/],
    [{ GNL_API_RATE_BURST: '0' }, /^GNL_API_RATE_BURST must be a positive number of calls/],
    [{ GNL_STUDIO_LEASE_MS: '999' }, /^GNL_STUDIO_LEASE_MS must be a whole number of milliseconds from 1000 to 3600000 \(an hour\), got "999"$/],
    [{ GNL_STUDIO_LEASE_MS: '30s' }, /^GNL_STUDIO_LEASE_MS must be a whole number of milliseconds/],
    [{ GNL_STUDIO_LEASE_MS: '3600001' }, /^GNL_STUDIO_LEASE_MS must be a whole number of milliseconds/],
  ])('names the variable that is wrong: %j', (env, why) => {
    expect(checkStudioSettings(env)).toMatch(why);
  });
});
