import { describe, expect, it } from 'vitest';
import type { JournalEvent, PendingItem } from './events';
import { unreachable } from './exhaustive';

/** A fold over pending kinds, as the projection writes one. */
function waitsFor(item: PendingItem): string {
  switch (item.kind) {
    case 'approval':
      return 'a decision';
    case 'side-effect':
      return 'a resolution';
    case 'tool-result':
      return 'a result';
    default:
      return unreachable(item, 'waitsFor');
  }
}

describe('unreachable', () => {
  it('compiles only after every case is handled', () => {
    const partial = (event: JournalEvent): string => {
      if (event.type === 'run-start') return 'start';
      // @ts-expect-error: every other event type is still possible here, so `event` is not never
      return unreachable(event);
    };
    expect(partial({ type: 'run-start', input: { modelId: 'm', provider: 'p', toolNames: [] } })).toBe('start');
    expect(waitsFor({ kind: 'tool-result', toolCallId: 'c', toolName: 't', input: {}, idempotencyKey: 'k', requestedAt: 'now' })).toBe('a result');
  });

  it('throws a JournalDataError naming the case when a value outside the union gets there (a newer row)', () => {
    const newer = { kind: 'human-input', toolCallId: 'c' } as unknown as PendingItem;
    expect(() => waitsFor(newer)).toThrow(
      expect.objectContaining({ name: 'JournalDataError', message: 'waitsFor met a case it does not know: kind "human-input".' }),
    );
    expect(() => unreachable({ type: 'run-pause' } as never)).toThrow('A fold met a case it does not know: type "run-pause".');
    expect(() => unreachable(7 as never)).toThrow('A fold met a case it does not know: 7.');
  });
});
