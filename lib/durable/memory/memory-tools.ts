/**
 * The tools that give an agent memory (docs/memory.md), each through the one door like any tool:
 *
 *   recall                read-only: embeds the query (the AI SDK's `embed`), searches the resource's
 *                         memory and returns the top items with their scores. Its result is journaled as
 *                         the call's: a resumed or replayed run gets the same items, and the embedding model
 *                         is not called again for a step that finished.
 *   remember              a side effect: embeds the facts (`embedMany`) and stores them under the call's
 *                         idempotency key, so a retry or a crash in between writes them once (retrySafe: the
 *                         store deduplicates by key; `check` asks the store whether the key was written).
 *   readWorkingMemory     read-only: the resource's typed record and its version.
 *   updateWorkingMemory   a side effect: writes the record (checked by its zod schema) as the version after
 *                         the one the model read; a write that finds it replaced is a conflict the model
 *                         sees (with the current value), never a lost update.
 */
import { type EmbeddingModel, embed, embedMany, type Tool, tool } from 'ai';
import { z } from 'zod';
import { type GnlToolOptions, gnlTool } from '../tools/gnl-tool';
import { type MemoryItem, type MemoryStore, unitVector } from './memory-store';

export interface MemoryToolsOptions<WORKING extends z.ZodType = z.ZodType> {
  store: MemoryStore;
  /** Whose memory: a customer, a user. */
  resource: string;
  /** The AI SDK embedding model (a provider's, from env; a deterministic one in tests). */
  embeddingModel: EmbeddingModel;
  /** Items recall returns by default (at most 20). Default 5. */
  topK?: number;
  /** The working memory's schema: with it, readWorkingMemory and updateWorkingMemory are given too. */
  working?: WORKING;
  /** Recorded as the writer of working memory versions. Default 'agent'. */
  by?: string;
}

const recalledShape = z.object({ id: z.number(), kind: z.enum(['message', 'fact']), text: z.string(), score: z.number(), createdAt: z.string() });

/**
 * How a write into memory goes through the door: a side effect, retrySafe (the store writes a key once),
 * and checked by asking the store whether the key was written, answering with `output` of those items.
 */
export function memoryWriteOptions<OUTPUT>(store: MemoryStore, output: (items: MemoryItem[]) => OUTPUT): GnlToolOptions<unknown, OUTPUT> {
  return {
    sideEffect: true,
    retrySafe: true,
    check: async ({ idempotencyKey }) => {
      const items = await store.written(idempotencyKey);
      return items ? { done: true, output: output(items) } : { done: false };
    },
  };
}

export function memoryTools<WORKING extends z.ZodType>(options: MemoryToolsOptions<WORKING>): Record<string, Tool> {
  const { store, resource, embeddingModel } = options;
  if (typeof resource !== 'string' || resource.length === 0) throw new TypeError('memoryTools: give the resource whose memory it is (a customer id).');
  const topK = Math.min(Math.max(options.topK ?? 5, 1), 20);

  const recall = tool({
    description: 'Recall what is remembered about this customer: the most similar facts and messages of earlier conversations, with their scores.',
    inputSchema: z.object({ query: z.string().min(1).max(2_000), topK: z.number().int().min(1).max(20).optional() }),
    outputSchema: z.object({ items: z.array(recalledShape) }),
    execute: async ({ query, topK: k }) => {
      const { embedding } = await embed({ model: embeddingModel, value: query });
      const items = await store.search({ resource, embedding: unitVector(embedding), topK: k ?? topK });
      return { items: items.map(({ id, kind, text, score, createdAt }) => ({ id, kind, text, score, createdAt })) };
    },
  });

  const rememberedOf = (items: { id: number; text: string }[]) => ({ remembered: items.map(({ id, text }) => ({ id, text })) });
  const remember = gnlTool(
    tool({
      description: 'Remember facts about this customer for later conversations (each a short sentence).',
      inputSchema: z.object({ facts: z.array(z.string().min(1).max(2_000)).min(1).max(20) }),
      outputSchema: z.object({ remembered: z.array(z.object({ id: z.number(), text: z.string() })) }),
      execute: async ({ facts }, { idempotencyKey }: { idempotencyKey?: string }) => {
        if (!idempotencyKey) throw new Error('remember runs through the journal: it needs the call’s idempotency key');
        const { embeddings } = await embedMany({ model: embeddingModel, values: facts });
        const written = await store.add({
          resource,
          key: idempotencyKey,
          items: facts.map((text, i) => ({ kind: 'fact' as const, text, embedding: unitVector(embeddings[i] ?? []) })),
        });
        return rememberedOf(written.items);
      },
    }),
    memoryWriteOptions(store, rememberedOf),
  );

  const tools: Record<string, Tool> = { recall: recall as Tool, remember: remember as Tool };
  const schema = options.working;
  if (!schema) return tools;

  tools.readWorkingMemory = tool({
    description: 'Read what is known about this customer (the working memory record) and its version.',
    inputSchema: z.object({}),
    execute: async () => {
      const current = await store.working(resource);
      return { version: current?.version ?? 0, value: current?.value ?? null };
    },
  }) as Tool;

  tools.updateWorkingMemory = gnlTool(
    tool({
      description:
        'Replace the working memory record with an updated one. Give the version you read: if someone updated it meanwhile, you get the current record back to merge and try again.',
      inputSchema: z.object({ expectedVersion: z.number().int().min(0), value: schema as z.ZodType }),
      execute: async ({ expectedVersion, value }, { idempotencyKey }: { idempotencyKey?: string }) => {
        if (!idempotencyKey) throw new Error('updateWorkingMemory runs through the journal: it needs the call’s idempotency key');
        const written = await store.writeWorking({ resource, expectedVersion, value, by: options.by ?? 'agent', key: idempotencyKey });
        return written.ok
          ? { ok: true, version: written.version }
          : { ok: false, conflict: 'updated meanwhile', current: { version: written.current?.version ?? 0, value: written.current?.value ?? null } };
      },
    }),
    // retrySafe: the store answers a repeat of the key with the version that write made (writeWorking).
    { sideEffect: true, retrySafe: true },
  ) as Tool;
  return tools;
}
