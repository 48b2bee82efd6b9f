import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import type { JournalEvent } from '../journal/events';
import { runDurable } from '../index';
import { RequestHasher, requestHashV1 } from './request-hash';

const user = (text: string): LanguageModelV4Prompt[number] => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): LanguageModelV4Prompt[number] => ({ role: 'assistant', content: [{ type: 'text', text }] });
const system = (content: string): LanguageModelV4Prompt[number] => ({ role: 'system', content });
const call = (prompt: LanguageModelV4Prompt, extra: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({ prompt, ...extra });

/** A loop's prompts: each step's is the previous one plus an answer and a new user turn. */
function growing(steps: number, head: LanguageModelV4Prompt = [system('You refund.'), user('Refund o_17')]): LanguageModelV4Prompt[] {
  const prompts = [head];
  for (let i = 1; i < steps; i++) prompts.push([...(prompts[i - 1] as LanguageModelV4Prompt), assistant(`step ${i}`), user(`more ${i}`)]);
  return prompts;
}

it('a step hashes the same whether the hasher saw the earlier steps or not (a resume hashes from the start)', () => {
  const prompts = growing(6);
  const walked = new RequestHasher();
  const hashes = prompts.map((p) => walked.hash(call(p)));
  expect(new Set(hashes).size).toBe(6);
  for (const [i, p] of prompts.entries()) expect(new RequestHasher().hash(call(p))).toBe(hashes[i]);
  // A retried call of the same step (the SDK retrying a 429) hashes the same.
  expect(walked.hash(call(prompts[5] as LanguageModelV4Prompt))).toBe(hashes[5]);
  expect(hashes.every((h) => h.startsWith('2:'))).toBe(true);
});

it('a changed system prompt, setting or tool schema at any step is a different hash; a schema default is not', () => {
  const prompts = growing(4);
  const last = prompts[3] as LanguageModelV4Prompt;
  const base = new RequestHasher().hash(call(last));
  const walked = new RequestHasher();
  for (const p of prompts.slice(0, 3)) walked.hash(call(p));
  // Only the system message differs, at the last step, with the earlier steps already in the chain.
  expect(walked.hash(call([system('Today is day 2.'), ...last.slice(1)]))).not.toBe(base);
  expect(new RequestHasher().hash(call(last, { temperature: 0.5 }))).not.toBe(base);
  const tool = (schema: object) => [{ type: 'function' as const, name: 'refund', inputSchema: { type: 'object', properties: schema } }];
  const withTool = new RequestHasher().hash(call(last, { tools: tool({ amount: { type: 'number' } }) }));
  expect(new RequestHasher().hash(call(last, { tools: tool({ amount: { type: 'string' } }) }))).not.toBe(withTool);
  expect(new RequestHasher().hash(call(last, { tools: tool({ amount: { type: 'number', default: 1 } }) }))).toBe(withTool);
  // A new message's content differs.
  expect(new RequestHasher().hash(call([...last.slice(0, -1), user('other')]))).not.toBe(base);
});

it('a prompt that is not an extension of the last one (a sliding window, a trimmed history) is hashed from the start', () => {
  const prompts = growing(5);
  const walked = new RequestHasher();
  for (const p of prompts) walked.hash(call(p));
  const full = prompts[4] as LanguageModelV4Prompt;
  // The same length as the last prompt, its messages shifted by one turn.
  const window = [full[0] as LanguageModelV4Prompt[number], ...full.slice(3), assistant('step 5'), user('more 5')];
  expect(window.length).toBe(full.length);
  expect(walked.hash(call(window))).toBe(new RequestHasher().hash(call(window)));
  const shorter = full.slice(0, 3);
  expect(walked.hash(call(shorter))).toBe(new RequestHasher().hash(call(shorter)));
});

describeEachJournal('request hashes in the journal', (target) => {
  const { journal } = target.open();

  it('new steps record version 2; a run recorded with version 1 hashes replays against them: no mismatch, no model call', async () => {
    const agent = refundAgent({ sideEffect: true });
    const runId = uniqueRunId();
    const first = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, system: 'You refund.', prompt: 'Refund o_17' });
    expect(first.status).toBe('completed');
    const recorded = await journal.events(runId);
    // What each step asked the provider (the mock model keeps its calls).
    const asked = agent.scripted.model.doGenerateCalls;
    const steps = recorded.filter((e) => e.type === 'model-step');
    expect(steps.length).toBe(asked.length);
    expect(steps.every((e) => String(e.requestHash).startsWith('2:'))).toBe(true);

    // The same history as a run recorded before version 2: its model steps carry the whole-call hash.
    const oldRunId = uniqueRunId();
    const hold = await journal.hold(oldRunId);
    try {
      const [start, ...rest] = recorded;
      await hold.create((start as Extract<JournalEvent, { type: 'run-start' }>).input);
      await hold.append(
        rest.map((e) => {
          const { seq: _seq, at: _at, ...event } = e;
          if (event.type !== 'model-step') return event as JournalEvent;
          return { ...event, requestHash: requestHashV1(asked[event.step] as LanguageModelV4CallOptions) } as JournalEvent;
        }),
      );
    } finally {
      await hold.release();
    }
    const replay = refundAgent({ sideEffect: true });
    const again = await runDurable({
      runId: oldRunId,
      journal,
      model: replay.scripted.model,
      tools: replay.tools,
      system: 'You refund.',
      prompt: 'Refund o_17',
    });
    expect(again.status).toBe('completed');
    expect(replay.scripted.calls()).toBe(0);
    expect(replay.ledger.total).toBe(0);
    expect((await journal.events(oldRunId)).filter((e) => e.type === 'replay-mismatch')).toEqual([]);

    // Version 1 rows still notice a replay that asks differently (at both steps: each one's system prompt changed).
    const differs = await runDurable({
      runId: oldRunId,
      journal,
      model: replay.scripted.model,
      tools: replay.tools,
      system: 'You refund.',
      prompt: 'Refund o_17',
      prepareStep: () => ({ system: 'Today is another day.' }),
    });
    expect(differs.status).toBe('completed');
    const mismatches = (await journal.events(oldRunId)).filter((e) => e.type === 'replay-mismatch');
    expect(mismatches.map((e) => [e.kind, e.step])).toEqual(steps.map((e) => ['model-call', e.step]));
  });
});

it('a prompt given as its tail (its instructions, then what it adds) hashes as the whole prompt; a version 1 hash in between makes it refuse', () => {
  const tool = (id: string): LanguageModelV4Prompt[number] => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName: 'refund', output: { type: 'json', value: { ok: id } } }],
  });
  const calls = (id: string): LanguageModelV4Prompt[number] => ({
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: id, toolName: 'refund', input: { amount: 1 } }],
  });
  // Two instructions, then a system message among the messages (what memory's recall gives), then the turns.
  const head: LanguageModelV4Prompt = [system('You refund.'), system('Be brief.'), system('Recalled: o_17 was late.'), user('Refund o_17')];
  const prompts: LanguageModelV4Prompt[] = [head];
  for (let i = 1; i < 6; i++) prompts.push([...(prompts[i - 1] as LanguageModelV4Prompt), calls(`c${i}`), tool(`c${i}`)]);
  const settings = { temperature: 0 };
  const whole = prompts.map((p) => new RequestHasher().hash(call(p, settings)));
  const tailed = new RequestHasher();
  expect(tailed.hash(call(head, settings))).toBe(whole[0]);
  for (let i = 1; i < prompts.length; i++) {
    const tail = [system('You refund.'), system('Be brief.'), ...(prompts[i] as LanguageModelV4Prompt).slice((prompts[i - 1] as LanguageModelV4Prompt).length)];
    expect(tailed.hashTail(call(tail, settings))).toBe(whole[i]);
  }
  // The whole prompt after tails hashes as from the start: the chain is the same.
  const next = [...(prompts[5] as LanguageModelV4Prompt), calls('c6'), tool('c6')];
  expect(tailed.hash(call(next, settings))).toBe(new RequestHasher().hash(call(next, settings)));
  // Changed instructions in a tail are a different hash, as in the whole prompt.
  const changed = new RequestHasher();
  changed.hash(call(prompts[0] as LanguageModelV4Prompt, settings));
  const changedTail = [system('Today is day 2.'), system('Be brief.'), calls('c1'), tool('c1')];
  expect(changed.hashTail(call(changedTail, settings))).toBe(
    new RequestHasher().hash(call([system('Today is day 2.'), ...(prompts[1] as LanguageModelV4Prompt).slice(1)], settings)),
  );
  // A version 1 step leaves the chain behind: the next prompt must be given whole.
  const old = new RequestHasher();
  old.hash(call(head, settings));
  old.hashLike('v1-digest', call(prompts[1] as LanguageModelV4Prompt, settings));
  expect(old.extendable).toBe(false);
  expect(() => old.hashTail(call([system('You refund.'), calls('c2'), tool('c2')], settings))).toThrow(/not version 2/);
});

it('includeRawChunks (streamText sends it, generateText does not) is not hashed; records made with it still compare equal', () => {
  const prompt: LanguageModelV4Prompt = [system('You refund.'), user('Refund o_17')];
  const settings = { toolChoice: { type: 'auto' as const } };
  const generated = new RequestHasher().hash(call(prompt, settings));
  expect(new RequestHasher().hash(call(prompt, { ...settings, includeRawChunks: false }))).toBe(generated);
  // What version 2 recorded before (golden values from request-hash.ts at 9fd5d5b): unchanged for generateText's calls.
  const streamedBefore = '2:pwfI4yKjZbQYqys_eqsmvQwHhY9UzmyHt2gWIf-DDDI';
  expect(generated).toBe('2:6JHlj_Uab4ltdYO8QHIGh26OtsxYhF6wHyr33pPMktc');
  // A step streamed then, replayed now by either loop, is its record; another record is not.
  expect(new RequestHasher().hashLike(streamedBefore, call(prompt, { ...settings, includeRawChunks: false }))).toBe(streamedBefore);
  expect(new RequestHasher().hashLike(streamedBefore, call(prompt, settings))).toBe(streamedBefore);
  expect(new RequestHasher().hashLike('2:another', call(prompt, settings))).toBe(generated);
  expect(new RequestHasher().hashLike(streamedBefore, call(prompt, { ...settings, temperature: 1 }))).not.toBe(streamedBefore);
});
