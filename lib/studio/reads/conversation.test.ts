/**
 * A conversation's thread, read from real runs: each user turn a runDurable run with the conversation's
 * id and the conversation so far as its messages (scripted model, the refund tool that needs approval,
 * its ledger counting refunds), on both journals.
 */
import type { ModelMessage } from 'ai';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { runDurable } from '@/lib/durable';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { REFUND_INPUT, refundAgent } from '@/tests/support/refund-agent';
import { scriptedModel, type ScriptedStep } from '@/tests/support/scripted-model';
import { conversationTurnOf, conversationTurnStatement, conversationTurnsStatement, readConversation, turnUserText } from './conversation';

/** The n-th model call of a turn is the conversation's n-th assistant message: earlier turns' answers count. */
function chatScript(step: number): ScriptedStep {
  if (step === 0) return { text: 'Order o_17 shipped on Monday.' };
  if (step === 1) return { text: 'It should arrive by Friday.' };
  if (step === 2) return { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: REFUND_INPUT }] };
  return { text: 'Refunded 40 for o_17.' };
}

const USER_1: ModelMessage = { role: 'user', content: 'Where is order o_17?' };
// Text in two parts around an image file (bytes: stored tagged, so this turn is read back through the journal).
const USER_2: ModelMessage = {
  role: 'user',
  content: [
    { type: 'text', text: 'When will it' },
    { type: 'file', data: new Uint8Array([137, 80, 78, 71]), mediaType: 'image/png' },
    { type: 'text', text: 'arrive?' },
  ],
};
const USER_3: ModelMessage = { role: 'user', content: 'Please refund it instead.' };
const answer = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });

describeEachJournal('a conversation as the Studio reads it', (target) => {
  const { journal, storage } = target.open();
  const conversationId = uniqueRunId('conv');
  const turnIds = [1, 2, 3].map((n) => `chat:${conversationId}:m${n}`);
  const agent = refundAgent({ sideEffect: true, needsApproval: true }, chatScript);
  const turn = (n: number, messages: ModelMessage[]) =>
    runDurable({ runId: turnIds[n - 1] as string, journal, model: agent.scripted.model, tools: agent.tools, messages, conversationId });
  const history = [
    [USER_1],
    [USER_1, answer('Order o_17 shipped on Monday.'), USER_2],
    [USER_1, answer('Order o_17 shipped on Monday.'), USER_2, answer('It should arrive by Friday.'), USER_3],
  ];
  let otherRun: string;

  beforeAll(async () => {
    expect((await turn(1, history[0] as ModelMessage[])).status).toBe('completed');
    // Another conversation, and a run of none, started between two turns: neither belongs to the thread.
    otherRun = uniqueRunId('chat:other');
    await runDurable({
      runId: otherRun,
      journal,
      model: scriptedModel(() => ({ text: 'Hi.' })).model,
      messages: [USER_3],
      conversationId: uniqueRunId('conv'),
    });
    await runDurable({ runId: uniqueRunId('plain'), journal, model: scriptedModel(() => ({ text: 'Hi.' })).model, messages: [USER_3] });
    expect((await turn(2, history[1] as ModelMessage[])).status).toBe('completed');
    expect((await turn(3, history[2] as ModelMessage[])).status).toBe('waiting-approval');
  }, 120_000);

  it('lists its turns oldest first: each user message, the answer, and for the waiting one the approval it waits for', async () => {
    const conversation = await readConversation(storage, conversationId);
    expect(conversation).toEqual({
      conversationId,
      earlierTurns: 0,
      turns: [
        {
          turn: 1,
          runId: turnIds[0],
          status: 'completed',
          createdAt: expect.any(String),
          userText: 'Where is order o_17?',
          otherParts: 0,
          answer: { kind: 'text', text: 'Order o_17 shipped on Monday.' },
          stepCount: 1,
        },
        {
          turn: 2,
          runId: turnIds[1],
          status: 'completed',
          createdAt: expect.any(String),
          userText: 'When will it\narrive?',
          otherParts: 1,
          answer: { kind: 'text', text: 'It should arrive by Friday.' },
          stepCount: 1,
        },
        {
          turn: 3,
          runId: turnIds[2],
          status: 'waiting-approval',
          createdAt: expect.any(String),
          userText: 'Please refund it instead.',
          otherParts: 0,
          answer: { kind: 'waiting', waits: [{ kind: 'approval', toolName: 'refund', toolCallId: 'call-refund', input: REFUND_INPUT }] },
          stepCount: 1,
        },
      ],
    });
    expect(agent.ledger.total).toBe(0);
  });

  it('bounded: with a limit it shows the newest turns, numbered in the whole conversation, and says how many came before', async () => {
    const conversation = await readConversation(storage, conversationId, { limit: 2 });
    expect(conversation?.earlierTurns).toBe(1);
    expect(conversation?.turns.map((t) => [t.turn, t.runId])).toEqual([
      [2, turnIds[1]],
      [3, turnIds[2]],
    ]);
  });

  it('places a run in its conversation; a run of another conversation, and a conversation with no runs, are none of it', async () => {
    expect(await conversationTurnOf(storage, conversationId, turnIds[1] as string)).toEqual({ conversationId, turn: 2, turns: 3 });
    expect(await conversationTurnOf(storage, conversationId, otherRun)).toBeUndefined();
    expect(await conversationTurnOf(storage, conversationId, 'no-such-run')).toBeUndefined();
    expect(await readConversation(storage, uniqueRunId('conv'))).toBeUndefined();
  });

  it('after the approval (decided, then resumed) the waiting turn shows the decision, then the answer; one refund', async () => {
    await journal.approve({ runId: turnIds[2] as string, toolCallId: 'call-refund', by: 'alice@acme' });
    const decided = await readConversation(storage, conversationId);
    expect(decided?.turns[2]?.answer).toEqual({ kind: 'waiting', waits: [expect.objectContaining({ toolName: 'refund', decided: 'approved' })] });
    expect((await turn(3, history[2] as ModelMessage[])).status).toBe('completed');
    const done = await readConversation(storage, conversationId);
    expect(done?.turns[2]).toMatchObject({ status: 'completed', answer: { kind: 'text', text: 'Refunded 40 for o_17.' }, stepCount: 2 });
    expect(agent.ledger.total).toBe(1);
  });

  it('a user message stored apart (over 64 KiB) is read back whole through the journal', async () => {
    const big = `Here is the log: ${'x'.repeat(70_000)}`;
    const id = uniqueRunId('conv:big');
    await runDurable({
      runId: `chat:${id}:m1`,
      journal,
      model: scriptedModel(() => ({ text: 'Noted.' })).model,
      messages: [{ role: 'user', content: big }],
      conversationId: id,
    });
    const conversation = await readConversation(storage, id);
    expect(conversation?.turns.map((t) => [t.userText, t.answer])).toEqual([[big, { kind: 'text', text: 'Noted.' }]]);
  });

  it('both statements can walk runs_conversation_idx (sequential scans off, as on a big journal)', async () => {
    const db = await storage.database();
    for (const statement of [conversationTurnsStatement(conversationId, 200), conversationTurnStatement(conversationId, turnIds[0] as string)]) {
      const plan = await db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const result = (await tx.execute(sql`explain ${statement}`)) as unknown;
        const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, string>[];
        return rows.map((row) => Object.values(row)[0]).join('\n');
      });
      expect(plan).toContain('runs_conversation_idx');
    }
  });
});

it('the user text of a turn: the last user message, text parts only; a string prompt as it is', () => {
  expect(turnUserText({ messages: [USER_1, answer('a'), USER_2, answer('b')] })).toEqual({ text: 'When will it\narrive?', otherParts: 1 });
  expect(turnUserText({ prompt: 'Refund o_17' })).toEqual({ text: 'Refund o_17', otherParts: 0 });
  expect(turnUserText({ prompt: [answer('only the assistant')] })).toEqual({ text: null, otherParts: 0 });
  expect(turnUserText({ messages: [{ role: 'user', content: [{ type: 'image', image: 'data:,' }] }] })).toEqual({ text: null, otherParts: 1 });
});
