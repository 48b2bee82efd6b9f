/**
 * Memory on both real journals (docs/memory.md), with a deterministic embedding model (the AI SDK's
 * MockEmbeddingModelV4: words hashed into 64 dimensions) whose calls are counted:
 * - the store: a write under one key is one write; a thread's last messages; the exact search ranks by
 *   cosine; working memory is versioned, two writers of one version make one write and one conflict;
 * - an agent that remembers in one run recalls in another; a run resumed after its model failed sees the
 *   items it recalled before (a fact added meanwhile does not change them) and the embedding model is not
 *   called again; a remember whose process lost its answer after the write is written once.
 */
import { expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { wordEmbeddingModel, wordVector } from '@/tests/support/word-embeddings';
import { APPEND_TURN_TOOL, memoryTools, type MemoryStore, runDurable, unitVector } from '../index';
import { z } from 'zod';

const embeddingModel = wordEmbeddingModel;

describeEachJournal('memory', (target) => {
  const { storage } = target.open();
  const store = (): MemoryStore => storage.memory;

  it('the store: one write per key, a thread’s last messages, search by cosine, versioned working memory with conflicts', async () => {
    const resource = uniqueRunId('customer');
    const facts = ['prefers email over phone', 'order o_17 arrived damaged'].map((text) => ({
      kind: 'fact' as const,
      text,
      embedding: unitVector(wordVector(text)),
    }));
    const first = await store().add({ resource, key: `${resource}:k-1`, items: facts });
    const again = await store().add({ resource, key: `${resource}:k-1`, items: facts });
    expect([first.replayed, again.replayed]).toEqual([false, true]);
    expect(again.items.map((i) => i.id)).toEqual(first.items.map((i) => i.id));
    for (const [n, text] of ['hello', 'my order is broken', 'sorry to hear', 'thanks'].entries())
      await store().add({ resource, key: `${resource}:m-${n}`, items: [{ kind: 'message', thread: 't-1', role: n % 2 ? 'assistant' : 'user', text }] });
    expect((await store().history({ resource, thread: 't-1', limit: 2 })).map((m) => m.text)).toEqual(['sorry to hear', 'thanks']);
    const [best, next] = await store().search({ resource, embedding: unitVector(wordVector('does she prefer email')), topK: 2, kinds: ['fact'] });
    expect(best?.text).toBe('prefers email over phone');
    expect(best?.score).toBeGreaterThan(next?.score ?? 1);
    expect(await store().search({ resource: uniqueRunId('nobody'), embedding: unitVector(wordVector('x')), topK: 3 })).toEqual([]);

    expect(await store().working(resource)).toBeUndefined();
    expect(await store().writeWorking({ resource, expectedVersion: 0, value: { tier: 'gold' }, by: 'agent', key: `${resource}:w-1` })).toEqual({
      ok: true,
      version: 1,
      replayed: false,
    });
    const racing = await Promise.all([
      store().writeWorking({ resource, expectedVersion: 1, value: { tier: 'gold', channel: 'email' }, by: 'run-a', key: `${resource}:w-a` }),
      store().writeWorking({ resource, expectedVersion: 1, value: { tier: 'silver' }, by: 'run-b', key: `${resource}:w-b` }),
    ]);
    expect(racing.filter((w) => w.ok)).toHaveLength(1);
    expect(racing.find((w) => !w.ok)).toMatchObject({ ok: false, conflict: true, current: { version: 2 } });
    expect(await store().writeWorking({ resource, expectedVersion: 0, value: {}, by: 'x', key: `${resource}:w-1` })).toEqual({
      ok: true,
      version: 1,
      replayed: true,
    });
    expect(await store().writeWorking({ resource, expectedVersion: 0, value: {}, by: 'late', key: `${resource}:w-late` })).toMatchObject({
      ok: false,
      conflict: true,
    });
    expect((await store().workingHistory(resource)).map((w) => w.version)).toEqual([2, 1]);
    // A key names one write: the same key for another resource's items is refused, not taken for a replay.
    await expect(store().add({ resource: uniqueRunId('other'), key: `${resource}:k-1`, items: facts })).rejects.toMatchObject({ name: 'MemoryInputError' });
    expect(await store().forget(resource)).toEqual({ items: 6, versions: 2 });
    expect(await store().working(resource)).toBeUndefined();
  });

  it('remembered in one run, recalled in the next; a resume sees what it recalled before, without embedding again', async () => {
    const resource = uniqueRunId('customer');
    const embedder = embeddingModel();
    const tools = memoryTools({ store: store(), resource, embeddingModel: embedder, working: z.object({ channel: z.string() }) });
    const teach = scriptedModel((step) =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'c-remember', toolName: 'remember', input: { facts: ['Ada prefers email over phone', 'order o_17 arrived damaged'] } }] }
        : { text: 'Noted.' },
    );
    expect((await runDurable({ runId: uniqueRunId('teach'), journal: storage.runs, model: teach.model, tools, prompt: 'Remember Ada' })).status).toBe(
      'completed',
    );

    let failOnce = true;
    const ask = scriptedModel((step, prompt) => {
      if (step === 0) return { toolCalls: [{ toolCallId: 'c-recall', toolName: 'recall', input: { query: 'how does Ada prefer to be contacted by email' } }] };
      if (failOnce) {
        failOnce = false;
        throw Object.assign(new Error('provider down'), { name: 'ProviderDown' });
      }
      const result = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((part) => part.type === 'tool-result');
      const items = ((result && 'output' in result ? (result.output as { value?: { items?: { text: string }[] } }).value : undefined)?.items ?? []).map(
        (i) => i.text,
      );
      return { text: `Top: ${items[0]} (${items.length} items)` };
    });
    const runId = uniqueRunId('recall');
    const call = () => runDurable({ runId, journal: storage.runs, model: ask.model, tools, prompt: 'Contact Ada', maxRetries: 0 });
    await expect(call()).rejects.toThrow(/provider down/);
    const embedsBefore = embedder.doEmbedCalls.length;
    // Meanwhile another run remembers something closer to the query: the resumed run must not see it.
    await store().add({
      resource,
      key: `${resource}:later`,
      items: [{ kind: 'fact', text: 'Ada prefers to be contacted by email', embedding: unitVector(wordVector('Ada prefers to be contacted by email')) }],
    });
    const resumed = await call();
    expect(resumed.status).toBe('completed');
    expect(resumed.status === 'completed' ? resumed.text : '').toBe('Top: Ada prefers email over phone (2 items)');
    expect(embedder.doEmbedCalls.length).toBe(embedsBefore);
    // The record: recall's items as the first invocation got them.
    const events = await storage.runs.events(runId);
    const recalled = events.find((e) => e.type === 'tool-call-end' && e.toolName === 'recall') as { output: { items: { text: string }[] } } | undefined;
    expect(recalled?.output.items.map((i) => i.text)).toEqual(['Ada prefers email over phone', 'order o_17 arrived damaged']);
  });

  it('a remember whose answer was lost after the write (a retry of the call) is written once, under the call’s key', async () => {
    const resource = uniqueRunId('customer');
    let lose = true;
    const lossy: MemoryStore = {
      ...store(),
      add: async (request) => {
        const written = await store().add(request);
        if (lose) {
          lose = false;
          throw new Error('socket hang up');
        }
        return written;
      },
      written: (key) => store().written(key),
    };
    const tools = memoryTools({ store: lossy, resource, embeddingModel: embeddingModel() });
    const model = scriptedModel((step) =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c-r', toolName: 'remember', input: { facts: ['likes tea'] } }] } : { text: 'ok' },
    );
    const result = await runDurable({ runId: uniqueRunId('lossy'), journal: storage.runs, model: model.model, tools, prompt: 'Remember' });
    expect(result.status).toBe('completed');
    const all = await store().search({ resource, embedding: unitVector(wordVector('likes tea')), topK: 10 });
    expect(all.map((i) => i.text)).toEqual(['likes tea']);
  });

  it('a run with memory: given the thread’s last messages and what recall found, recorded; a resume gets the record; its turn is appended once', async () => {
    const resource = uniqueRunId('customer');
    const thread = uniqueRunId('thread');
    const embedder = embeddingModel();
    // Keys name one write across the whole store (the Postgres server is shared between runs of the suite): the resource's own.
    const seed = (key: string, role: string, text: string) =>
      store().add({ resource, key: `${resource}:${key}`, items: [{ kind: 'message', thread, role, text, embedding: unitVector(wordVector(text)) }] });
    await seed('h-0', 'user', 'my parcel for order o_17 is late');
    await seed('h-1', 'assistant', 'Sorry, it ships tomorrow.');
    await store().add({
      resource,
      key: `${resource}:f-0`,
      items: [{ kind: 'fact', text: 'Ada prefers refunds to vouchers', embedding: unitVector(wordVector('Ada prefers refunds to vouchers')) }],
    });

    let failOnce = true;
    const seen: unknown[][] = [];
    const model = scriptedModel((_step, prompt) => {
      seen.push(prompt);
      if (failOnce) {
        failOnce = false;
        throw Object.assign(new Error('provider down'), { name: 'ProviderDown' });
      }
      return { text: 'A refund of order o_17 is on its way.' };
    });
    const runId = uniqueRunId('mem-run');
    const memory = { store: store(), resource, thread, lastMessages: 2, recall: { embeddingModel: embedder, topK: 3 } };
    const call = () => runDurable({ runId, journal: storage.runs, model: model.model, prompt: 'Ada wants refunds for order o_17', memory, maxRetries: 0 });
    await expect(call()).rejects.toThrow(/provider down/);
    const embedsAfterStart = embedder.doEmbedCalls.length;
    expect(embedsAfterStart).toBe(1);
    // The first call's prompt: the recalled fact (with its score) as a system message, the thread's two messages, then the run's own.
    const first = seen[0] as { role: string; content: unknown }[];
    expect(first.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(first[0]?.content)).toMatch(/Ada prefers refunds to vouchers/);
    expect(JSON.stringify(first[0]?.content)).toMatch(/similarity 0\.\d\d/);
    const recorded = (await storage.runs.getRun(runId))?.input.memory;
    expect(recorded).toMatchObject({ resource, thread, recalled: [expect.objectContaining({ kind: 'fact', score: expect.any(Number) })] });

    // Meanwhile the thread grows: the resumed run is given what it was given when it started, and embeds nothing more.
    await seed('h-2', 'user', 'also, order o_17 needs a new address');
    const done = await call();
    expect(done.status).toBe('completed');
    expect(JSON.stringify(seen[1])).toBe(JSON.stringify(seen[0]));
    // The turn is appended to the thread through the door: once, under the journal's key, embedded for later recall.
    const history = await store().history({ resource, thread, limit: 10 });
    expect(history.map((m) => [m.role, m.text]).slice(-2)).toEqual([
      ['user', 'Ada wants refunds for order o_17'],
      ['assistant', 'A refund of order o_17 is on its way.'],
    ]);
    expect(embedder.doEmbedCalls.length).toBe(embedsAfterStart + 1);
    const events = await storage.runs.events(runId);
    const append = events.filter((e) => e.type === 'tool-call-end' && e.toolName === APPEND_TURN_TOOL);
    expect(append).toHaveLength(1);
    // Called again: answered from its record, nothing appended again.
    expect((await call()).status).toBe('completed');
    expect((await store().history({ resource, thread, limit: 10 })).length).toBe(history.length);

    // The next run of the thread sees the turn; another resource or thread for an existing run is refused.
    const next = scriptedModel(() => ({ text: 'ok' }));
    await runDurable({
      runId: uniqueRunId('mem-next'),
      journal: storage.runs,
      model: next.model,
      prompt: 'and now?',
      memory: { store: store(), resource, thread, lastMessages: 2 },
    });
    expect(JSON.stringify(next.prompts[0])).toContain('A refund of order o_17 is on its way.');
    await expect(
      runDurable({ runId, journal: storage.runs, model: model.model, prompt: 'Ada wants refunds for order o_17', memory: { ...memory, thread: 'other' } }),
    ).rejects.toMatchObject({
      name: 'RunDivergedError',
    });
    await expect(
      runDurable({ runId: uniqueRunId('bad'), journal: storage.runs, model: next.model, prompt: 'x', memory: { store: store(), resource: '', thread } }),
    ).rejects.toMatchObject({
      name: 'MemoryInputError',
    });
  });
});
