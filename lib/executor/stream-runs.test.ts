/**
 * An executor with streamRuns (the Studio's, the workers'): a chat turn started with a conversationId
 * streams through streamAgent; its stream log carries the answer a reconnecting client replays, before
 * the approval (the refund waits, the stream says so) and after it (the next invocation replays the
 * recorded steps and streams on). Judged by the outside service's own counters.
 */
import type { UIMessage } from 'ai';
import { readUIMessageStream } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { answerMessageId, followRunStream, type LiveJournal } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { Executor, queueEntry } from './index';

async function replay(journal: LiveJournal, runId: string): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream: followRunStream({ journal, runId, idleCheckMs: 200 }) })) last = message;
  return last;
}

describeEachStorage('executor with streamRuns', (holder) => {
  let service: OutsideService;
  let executor: Executor;
  beforeAll(async () => {
    service = await startOutsideService();
    const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
    executor = new Executor({ storage: holder.storage, registry, concurrency: 2, leaseMs: 5_000, pollMs: 100, streamRuns: true }).start();
  });
  afterAll(async () => {
    await executor.stop({ graceMs: 5_000 });
    await service.close();
  });

  const settled = async (runId: string, outcome: string) => {
    for (let i = 0; i < 2400; i++) {
      const entry = await queueEntry(runId, { storage: holder.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} did not settle as ${outcome}`);
  };

  it('a chat turn streams to its approval and, approved and resumed, to its end; each stream replays whole; one refund', { timeout: 180_000 }, async () => {
    const before = service.stats();
    const journal = holder.storage.runs;
    const conversationId = `conv-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const messages = [{ role: 'user' as const, content: 'Customer c_42 wants a refund of 40 for order o_17' }];
    const { runId } = await executor.startRun({ agent: 'support', input: { messages, conversationId } });
    expect((await journal.getRun(runId))?.input).toMatchObject({ conversationId });
    await settled(runId, 'waiting-approval');

    const waiting = await replay(journal, runId);
    expect(waiting?.id).toBe(answerMessageId(runId));
    const refundPart = waiting?.parts.find((part) => part.type === 'tool-issueRefund') as { state: string } | undefined;
    expect(refundPart?.state).toBe('approval-requested');
    expect(service.stats().refunds.performed).toBe(before.refunds.performed);

    const run = await journal.getRun(runId);
    await journal.approve({ runId, toolCallId: run?.pending[0]?.toolCallId as string, by: 'ops@example.com' });
    await executor.resumeRun(runId, { by: 'ops@example.com', reason: 'approved' });
    await settled(runId, 'completed');

    const done = await replay(journal, runId);
    const text = done?.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    const events = await journal.events(runId);
    const completed = events.find((e) => e.type === 'run-complete') as { text?: string } | undefined;
    expect(text).toBe(completed?.text);
    expect(text?.length).toBeGreaterThan(0);
    expect(done?.parts.find((part) => part.type === 'tool-issueRefund')).toMatchObject({ state: 'output-available' });
    // One invocation's stream is kept: the newest, done.
    const batches = await journal.streamBatches(runId);
    expect(new Set(batches.map((b) => b.invocation)).size).toBe(1);
    expect(batches.at(-1)?.done).toBe(true);
    const after = service.stats();
    expect(after.refunds.performed - before.refunds.performed).toBe(1);
    expect(after.emails.performed - before.emails.performed).toBe(1);
  });
});
