/** The Studio's settings checked at start (boot.ts checkStudioSettings): a wrong one is named, so the start stops with it. */
import { describe, expect, it } from 'vitest';
import { checkStudioSettings } from './boot';

describe('the Studio checks its settings at start', () => {
  it('accepts what is unset or right', () => {
    expect(checkStudioSettings({})).toBeUndefined();
    expect(checkStudioSettings({ GNL_TRACE_URL: 'https://traces.example.com/trace/{traceId}', GNL_RETENTION_DAYS: '30' })).toBeUndefined();
  });

  it.each([
    [{ GNL_TRACE_URL: 'javascript:alert(1)//{traceId}' }, /^GNL_TRACE_URL must be an http\(s\) URL/],
    [{ GNL_TRACE_URL: 'https://traces.example.com/' }, /^GNL_TRACE_URL must contain \{traceId\}/],
    [{ GNL_RETENTION_DAYS: '0' }, /^GNL_RETENTION_DAYS must be a whole number/],
  ])('names the variable that is wrong: %j', (env, why) => {
    expect(checkStudioSettings(env)).toMatch(why);
  });
});
