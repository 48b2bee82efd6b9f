import { describe, expect, it } from 'vitest';
import { kindRank, SLOW_FIRST } from './support/slow-first-sequencer';

describe('slow-first sequencer', () => {
  it('ranks the SIGKILL suites first, process-spawning suites next, everything else last', () => {
    expect(kindRank('e2e/explorer/explorer.test.ts')).toBe(0);
    expect(kindRank('e2e/crash/crash.test.ts')).toBe(0);
    expect(kindRank('lib/cli/cli.test.ts')).toBe(1);
    expect(kindRank('e2e/faults/server-restart.test.ts')).toBe(1);
    expect(kindRank('lib/executor/workers.test.ts')).toBe(1);
    expect(kindRank('lib/executor/bulk/bulk.test.ts')).toBe(1);
    expect(kindRank('lib/executor/workers-helper.ts')).toBe(SLOW_FIRST.length);
    expect(kindRank('lib/durable/storage/journal-contract.test.ts')).toBe(SLOW_FIRST.length);
  });
});
