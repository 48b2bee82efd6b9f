/**
 * A run's journal events on an SSE channel in batches: one `events` message per batch, its SSE id the
 * batch's last seq (what a reconnecting client sends back as Last-Event-ID), cut at about BATCH_BYTES of
 * JSON so one message never holds a thousand big events. Secrets redacted (wire.ts). Shared by the
 * Studio's run stream (live.ts) and the HTTP API's follow (lib/server/run-follow.ts). No server-only
 * import: `gnl serve` runs it outside Next.
 */
import type { RecordedEvent } from '@/lib/durable';
import type { SseChannel } from './sse';
import { toWireEvent } from '../reads/wire';

const BATCH_BYTES = 512 * 1024;

export function sendEventBatches(channel: SseChannel, events: readonly RecordedEvent[]): void {
  let batch: ReturnType<typeof toWireEvent>[] = [];
  let bytes = 0;
  const flush = () => {
    const last = batch[batch.length - 1];
    if (last) channel.send({ event: 'events', id: last.seq, data: batch });
    batch = [];
    bytes = 0;
  };
  for (const event of events) {
    const wire = toWireEvent(event);
    batch.push(wire);
    bytes += JSON.stringify(wire).length;
    if (bytes >= BATCH_BYTES) flush();
  }
  flush();
}
