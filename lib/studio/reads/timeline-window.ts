/**
 * How the Studio pages a run's journal (browser-safe, pure). Runs can hold thousands of events, so a
 * run page starts with the tail (the last chunk or two) and follows it live; earlier events come in
 * fixed chunks of CHUNK_SIZE sequence numbers, fetched when they scroll into view. Sequence numbers
 * are contiguous from 1, so a chunk is a range, and the tail is always complete from its first event
 * to the newest one the browser has: live batches extend it only when they continue it exactly.
 */
import type { WireEvent } from './wire';

export const CHUNK_SIZE = 200;

/** The chunk holding `seq` (0-based): seqs chunk*CHUNK_SIZE+1 … (chunk+1)*CHUNK_SIZE. */
export function chunkOf(seq: number): number {
  return Math.floor((Math.max(seq, 1) - 1) / CHUNK_SIZE);
}

/** The first seq of the tail a page starts with: a chunk boundary, with at least 100 events before the newest when the run has them. */
export function tailStartFor(lastSeq: number): number {
  return chunkOf(Math.max(lastSeq - 100, 1)) * CHUNK_SIZE + 1;
}

export interface Tail {
  /** The first seq the tail holds (the events before it are in chunks). */
  startSeq: number;
  /** startSeq, startSeq+1, … with no gap. */
  events: WireEvent[];
}

/** The newest seq the tail holds (startSeq - 1 when it is empty). */
export function tailHead(tail: Tail): number {
  return tail.startSeq - 1 + tail.events.length;
}

/**
 * The tail with a live batch merged: events already held are dropped (a replay after a reconnect),
 * the rest must continue the tail exactly. `gap` is true when they do not (the caller reconnects from
 * the tail's head; nothing is merged past the gap).
 */
export function mergeIntoTail(tail: Tail, batch: readonly WireEvent[]): { tail: Tail; gap: boolean } {
  let head = tailHead(tail);
  const fresh: WireEvent[] = [];
  for (const event of batch) {
    if (event.seq <= head) continue;
    if (event.seq !== head + 1) return { tail: fresh.length ? { ...tail, events: [...tail.events, ...fresh] } : tail, gap: true };
    fresh.push(event);
    head = event.seq;
  }
  return { tail: fresh.length ? { ...tail, events: [...tail.events, ...fresh] } : tail, gap: false };
}
