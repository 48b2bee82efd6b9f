import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '@/lib/durable';
import { toWireEvent } from './wire';

describe('toWireEvent', () => {
  it("leaves a run-complete's recorded answer out (it repeats the run's events) and keeps the rest", () => {
    const at = new Date('2026-12-02T06:00:00Z');
    const event = { type: 'run-complete', text: 'Done.', finishReason: 'stop', steps: 2, answer: { v: 1, steps: [] }, seq: 9, at } as unknown as RecordedEvent;
    expect(toWireEvent(event)).toEqual({ type: 'run-complete', text: 'Done.', finishReason: 'stop', steps: 2, seq: 9, at: at.toISOString() });
  });
});
