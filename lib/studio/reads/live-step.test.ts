import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { liveStepOf } from './live-step';

const answer = (parts: UIMessage['parts']): UIMessage => ({ id: 'gnl:r', role: 'assistant', parts });

describe('the live step', () => {
  it('is nothing before the first step starts, and an empty step right after it does', () => {
    expect(liveStepOf(undefined)).toBeUndefined();
    expect(liveStepOf(answer([]))).toBeUndefined();
    expect(liveStepOf(answer([{ type: 'step-start' }]))).toEqual({ step: 1, text: '', reasoning: '', toolCalls: [] });
  });

  it('is the parts after the last step-start: earlier steps are left to the journal', () => {
    const step = liveStepOf(
      answer([
        { type: 'step-start' },
        { type: 'text', text: 'Looking you up.', state: 'done' },
        { type: 'tool-lookupCustomer', toolCallId: 'c0', state: 'output-available', input: { customerId: 'c_42' }, output: { found: true } },
        { type: 'step-start' },
        { type: 'reasoning', text: 'The order is theirs.', state: 'done' },
        { type: 'text', text: 'Refunding ', state: 'done' },
        { type: 'text', text: 'now', state: 'streaming' },
      ]),
    );
    expect(step).toEqual({ step: 2, text: 'Refunding now', reasoning: 'The order is theirs.', toolCalls: [] });
  });

  it('reads each call for a person: planned, decided, failed; a dynamic tool by its own name', () => {
    const step = liveStepOf(
      answer([
        { type: 'step-start' },
        { type: 'tool-issueRefund', toolCallId: 'a', state: 'input-streaming', input: undefined },
        {
          type: 'tool-issueRefund',
          toolCallId: 'b',
          state: 'approval-responded',
          input: { amount: 40 },
          approval: { id: 'x', approved: false, reason: 'too much' },
        },
        { type: 'tool-sendEmail', toolCallId: 'c', state: 'output-error', input: { to: 'a@b' }, errorText: 'mailbox full' },
        { type: 'dynamic-tool', toolName: 'search', toolCallId: 'd', state: 'input-available', input: { q: 'o_17' } },
      ]),
    );
    expect(step?.toolCalls).toEqual([
      { toolCallId: 'a', toolName: 'issueRefund', state: 'input-streaming', stateLabel: 'planning its input', hasInput: false },
      { toolCallId: 'b', toolName: 'issueRefund', state: 'approval-responded', stateLabel: 'rejected', input: { amount: 40 }, hasInput: true },
      { toolCallId: 'c', toolName: 'sendEmail', state: 'output-error', stateLabel: 'failed', input: { to: 'a@b' }, hasInput: true, errorText: 'mailbox full' },
      { toolCallId: 'd', toolName: 'search', state: 'input-available', stateLabel: 'planned', input: { q: 'o_17' }, hasInput: true },
    ]);
  });
});
