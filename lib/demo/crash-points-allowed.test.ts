import { describe, expect, it } from 'vitest';
import { crashPointsAllowed } from './crash-points-allowed';

describe('crash points from the Studio', () => {
  it('are on by default on the embedded journal, off on Postgres', () => {
    expect(crashPointsAllowed({ sharedJournal: false, env: {} })).toMatchObject({ allowed: true });
    expect(crashPointsAllowed({ sharedJournal: true, env: {} })).toEqual({
      allowed: false,
      why: 'Crash points are off: this Studio runs on Postgres (DATABASE_URL), where one would let any operator kill the server. GNL_DEMO_CRASH_POINTS=1 turns them on.',
    });
  });

  it('GNL_DEMO_CRASH_POINTS=1 turns them on on Postgres, =0 off on the embedded journal; anything else is refused', () => {
    expect(crashPointsAllowed({ sharedJournal: true, env: { GNL_DEMO_CRASH_POINTS: '1' } })).toMatchObject({ allowed: true });
    expect(crashPointsAllowed({ sharedJournal: false, env: { GNL_DEMO_CRASH_POINTS: '0' } })).toEqual({
      allowed: false,
      why: 'Crash points are off: GNL_DEMO_CRASH_POINTS=0.',
    });
    expect(crashPointsAllowed({ sharedJournal: true, env: { GNL_DEMO_CRASH_POINTS: '' } })).toMatchObject({ allowed: false });
    expect(() => crashPointsAllowed({ sharedJournal: false, env: { GNL_DEMO_CRASH_POINTS: 'yes' } })).toThrow(
      'GNL_DEMO_CRASH_POINTS must be 1 or 0 (got "yes").',
    );
  });
});
