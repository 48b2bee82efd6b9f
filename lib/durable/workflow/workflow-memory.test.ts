/**
 * A workflow's memory (workflow-memory.ts) on both real journals, with the deterministic words embedding
 * model whose calls are counted: recall, remember, working memory and its update are steps through the
 * door; a run that waited and is invoked again gets what it recalled the first time (a closer fact added
 * meanwhile changes nothing), asks the embedding model nothing more, and writes each thing once. A run
 * given no memory is refused with the reason.
 */
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { wordEmbeddingModel, wordVector } from '@/tests/support/word-embeddings';
import { RunState, unitVector } from '../index';
import { defineWorkflow } from './define-workflow';
import { runWorkflow } from './run-workflow';

describeEachJournal('workflow memory', (target) => {
  const { journal, storage } = target.open();

  it('recall, remember and working memory are steps: a second invocation gets the recorded reads, embeds nothing more and writes once', async () => {
    const resource = uniqueRunId('customer');
    const fact = 'the blue lamp of order o_17 arrived broken';
    await storage.memory.add({ resource, key: `${resource}-f1`, items: [{ kind: 'fact', text: fact, embedding: unitVector(wordVector(fact)) }] });
    const flow = defineWorkflow({
      name: 'remembers',
      input: z.object({}),
      events: { go: z.object({}) },
      run: async (wf) => {
        const found = await wf.memory.recall('recall', 'is the blue lamp broken', { topK: 1 });
        const { remembered } = await wf.memory.remember('remember', ['likes mornings']);
        const read = await wf.memory.working('read');
        const write = await wf.memory.updateWorking('write', { expectedVersion: read.version, value: { channel: 'email' }, reason: 'asked for email' });
        await wf.waitForEvent('go');
        return { found: found.map((item) => item.text), scores: found.map((item) => item.score), remembered, write };
      },
    });
    const embedder = wordEmbeddingModel();
    const runId = uniqueRunId('wf-memory');
    const invoke = () => runWorkflow({ workflow: flow, runId, input: {}, journal, memory: { store: storage.memory, resource, embeddingModel: embedder } });

    expect((await invoke()).status).toBe('waiting');
    expect(embedder.doEmbedCalls).toHaveLength(2); // the query, then the remembered fact
    // Meanwhile: a fact closer to the query than anything recalled.
    await storage.memory.add({
      resource,
      key: `${resource}-f2`,
      items: [{ kind: 'fact', text: 'is the blue lamp broken', embedding: unitVector(wordVector('is the blue lamp broken')) }],
    });
    await journal.sendEvent({ runId, name: 'go', payload: {}, by: 'test' });
    const done = await invoke();
    expect(done).toMatchObject({ status: 'completed', output: { found: [fact], write: { ok: true, version: 1 } } });
    expect(embedder.doEmbedCalls).toHaveLength(2);
    const remembered = (await storage.memory.items({ resource, limit: 10 })).filter((item) => item.text === 'likes mornings');
    expect(remembered).toHaveLength(1);
    expect((done as { output: { remembered: number[] } }).output.remembered).toEqual([remembered[0]?.id]);
    expect(await storage.memory.working(resource)).toMatchObject({
      version: 1,
      value: { channel: 'email' },
      reason: 'asked for email',
      updatedBy: `workflow-run:${runId}`,
    });
    // The writes are side effects of the run, through the door: each started once and ended once.
    const state = new RunState(await journal.events(runId));
    const starts = (await journal.events(runId)).filter((e) => e.type === 'tool-call-start').map((e) => (e as { toolName: string }).toolName);
    expect(starts).toEqual(['remember', 'write']);
    expect(state.status).toBe('completed');
  });

  it('a run given no memory is refused at its first memory call, saying how to give it one', async () => {
    const flow = defineWorkflow({ name: 'forgets', input: z.object({}), run: async (wf) => wf.memory.working('read') });
    const runId = uniqueRunId('wf-no-memory');
    await expect(runWorkflow({ workflow: flow, runId, input: {}, journal })).rejects.toThrow(/wf\.memory: this run was given no memory/);
    expect(new RunState(await journal.events(runId)).status).toBe('failed');
  });
  it('a working-memory update with a version that is not a whole number is refused before anything is written (a "3" was written as version 31)', async () => {
    const resource = uniqueRunId('customer');
    const flow = defineWorkflow({
      name: 'writes-a-text-version',
      input: z.object({}),
      run: async (wf) => wf.memory.updateWorking('write', { expectedVersion: '3' as unknown as number, value: { channel: 'sms' } }),
    });
    const runId = uniqueRunId('wf-memory-version');
    await expect(runWorkflow({ workflow: flow, runId, input: {}, journal, memory: { store: storage.memory, resource } })).rejects.toThrow(
      /updateWorking\("write"\).*expectedVersion: a whole number/,
    );
    expect(await storage.memory.working(resource)).toBeUndefined();
    expect((await journal.events(runId)).filter((e) => e.type === 'tool-call-start')).toEqual([]);
  });
});
