import { describe, expect, it } from 'vitest';
import { CHUNK_SIZE, chunkOf, mergeIntoTail, type Tail, tailHead, tailStartFor } from './timeline-window';
import type { WireEvent } from './wire';

const ev = (seq: number) => ({ seq, at: '2026-01-01T00:00:00.000Z', type: 'run-resume', fromStatus: 'running' }) as WireEvent;
const tail = (startSeq: number, last: number): Tail => ({ startSeq, events: Array.from({ length: last - startSeq + 1 }, (_, i) => ev(startSeq + i)) });

describe('timeline window', () => {
  it('numbers chunks from 0 over contiguous sequence numbers', () => {
    expect(chunkOf(1)).toBe(0);
    expect(chunkOf(CHUNK_SIZE)).toBe(0);
    expect(chunkOf(CHUNK_SIZE + 1)).toBe(1);
  });

  it('starts a page on a chunk boundary with at least 100 events before the newest when the run has them', () => {
    expect(tailStartFor(0)).toBe(1);
    expect(tailStartFor(150)).toBe(1);
    expect(tailStartFor(5_000)).toBe(4_801);
    for (const last of [1, 99, 101, 250, 301, 1_000, 123_456]) {
      const start = tailStartFor(last);
      expect((start - 1) % CHUNK_SIZE).toBe(0);
      expect(last - start + 1).toBeGreaterThanOrEqual(Math.min(last, 100));
      expect(last - start + 1).toBeLessThanOrEqual(300);
    }
  });

  it('merges a live batch once: events already held are dropped, the rest continue the tail', () => {
    const merged = mergeIntoTail(tail(1, 5), [ev(4), ev(5), ev(6), ev(7)]);
    expect(merged.gap).toBe(false);
    expect(merged.tail.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(tailHead(merged.tail)).toBe(7);
    const again = mergeIntoTail(merged.tail, [ev(6), ev(7)]);
    expect(again.tail).toBe(merged.tail);
  });

  it('never merges past a gap and says so (the caller reconnects from the head)', () => {
    const merged = mergeIntoTail(tail(201, 205), [ev(206), ev(208)]);
    expect(merged.gap).toBe(true);
    expect(tailHead(merged.tail)).toBe(206);
    expect(tailHead(tail(201, 200))).toBe(200);
  });
});
