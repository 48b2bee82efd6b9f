import { describe, expect, it } from 'vitest';
import { armedCrashPoint, withCrashPoint } from './crash-points';

describe('crash points', () => {
  it('are off unless asked; an invocation’s own crash point wins over the environment, even "none"', async () => {
    expect(armedCrashPoint({})).toBeUndefined();
    expect(armedCrashPoint({ GNL_DEMO_CRASH_AT: 'after-email-sent' })).toBe('after-email-sent');
    const inside = await withCrashPoint('after-refund-answered', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return armedCrashPoint({ GNL_DEMO_CRASH_AT: 'after-email-sent' });
    });
    expect(inside).toBe('after-refund-answered');
    expect(withCrashPoint(undefined, () => armedCrashPoint({ GNL_DEMO_CRASH_AT: 'after-email-sent' }))).toBeUndefined();
  });

  it('an unknown crash point is refused, naming the valid ones', () => {
    expect(() => armedCrashPoint({ GNL_DEMO_CRASH_AT: 'after-lunch' })).toThrow(
      'GNL_DEMO_CRASH_AT="after-lunch" is not a crash point: use one of after-ticket-created, after-refund-answered, after-email-sent',
    );
    expect(() => withCrashPoint('after-lunch' as never, () => 1)).toThrow('a crash point is one of');
  });
});
