/** The nav's inbox count on both journals (a fresh database each): undecided items of runs that wait for a person, nothing else. */
import { expect, it } from 'vitest';
import type { PendingItem } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { uniqueRunId } from '@/tests/support/journals';
import { inboxCount } from './inbox-count';

const input = { prompt: 'p', modelId: 'm', provider: 'x', toolNames: ['t'] };
const approval = (id: string): PendingItem => ({ kind: 'approval', toolCallId: id, toolName: 't', input: {}, requestedAt: new Date().toISOString() });

describeEachStorage('inbox count', (holder) => {
  it('counts the undecided items of waiting and blocked runs; a decision, a failure, a cancel and a resume take theirs away', async () => {
    const journal = holder.storage.runs;
    const run = async (...batches: Parameters<Awaited<ReturnType<typeof journal.hold>>['append']>[0][]) => {
      const runId = uniqueRunId('inbox-count');
      const hold = await journal.hold(runId);
      await hold.create(input);
      for (const batch of batches) await hold.append(batch);
      await hold.release();
      return runId;
    };
    expect(await inboxCount(holder.storage)).toBe(0);
    const two = await run([{ type: 'run-suspend', status: 'waiting-approval', pending: [approval('a'), approval('b')] }]);
    const blocked = await run([
      {
        type: 'run-suspend',
        status: 'blocked',
        pending: [
          {
            kind: 'side-effect',
            toolCallId: 'c',
            toolName: 't',
            input: {},
            idempotencyKey: 'k',
            attempt: 1,
            startedAt: new Date().toISOString(),
            reason: 'no outcome',
          },
        ],
      },
    ]);
    await run([{ type: 'run-fail', error: { name: 'E', message: 'm' } }]);
    await run([{ type: 'run-suspend', status: 'waiting-approval', pending: [approval('x')] }], [{ type: 'run-resume', fromStatus: 'waiting-approval' }]);
    expect(await inboxCount(holder.storage)).toBe(3);
    await journal.approve({ runId: two, toolCallId: 'a', by: 'alice' });
    expect(await inboxCount(holder.storage)).toBe(2);
    await journal.cancel({ runId: blocked, by: 'alice', reason: 'dup' });
    expect(await inboxCount(holder.storage)).toBe(1);
    // A tool-result a person answers counts; one whose sub-agent child run exists is the child's to answer.
    const question = (id: string): PendingItem => ({
      kind: 'tool-result',
      toolCallId: id,
      toolName: 'ask',
      input: {},
      idempotencyKey: `k-${id}`,
      requestedAt: new Date().toISOString(),
    });
    const lead = await run([{ type: 'run-suspend', status: 'waiting-tool-result', pending: [question('q-person'), question('q-sub')] }]);
    expect(await inboxCount(holder.storage)).toBe(3);
    const child = await journal.hold(`${lead}/q-sub`);
    await child.create({ ...input, parent: { runId: lead, waitId: 'q-sub' } });
    await child.release();
    expect(await inboxCount(holder.storage)).toBe(2);
  });
});
