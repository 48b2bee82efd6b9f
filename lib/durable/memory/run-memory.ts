/**
 * Memory given to a run (docs/memory.md, "A run with memory"): runDurable's `memory` option.
 *
 * - When the run starts, the thread's last messages are read (and, with `recall`, the resource's items
 *   most similar to the run's prompt, with their scores). They are recorded in the run's start input
 *   (`input.memory`), and the model is given them before the run's own messages. Every later
 *   invocation of the run (a resume, a retry, a process started after a crash) gives the model the
 *   recorded ones: the store and the embedding model are not asked again.
 * - When the run completes, its turn (the user's messages and the final answer) is appended to the
 *   thread through the one door: a side effect, retrySafe, under the key the door derives from the job,
 *   which the store keeps unique. A crash between the write and its record writes it once.
 */
import type { EmbeddingModel, ModelMessage, Tool } from 'ai';
import { embed, embedMany, tool } from 'ai';
import { z } from 'zod';
import { MemoryInputError } from '../errors';
import type { RunInput } from '../journal/events';
import { gnlTool } from '../tools/gnl-tool';
import type { MemoryItem, MemoryStore, RecalledItem } from './memory-store';
import { unitVector } from './memory-store';
import { memoryWriteOptions } from './memory-tools';

export interface RunMemory {
  store: MemoryStore;
  /** Whose memory: a customer, a user (1 to 200 characters). */
  resource: string;
  /** The conversation the run is a turn of (1 to 200 characters). */
  thread: string;
  /** How many of the thread's last messages the run is given. Default 10, at most 100. */
  lastMessages?: number;
  /** Semantic recall: the `topK` (default 5, at most 20) items of the resource most similar to the run's prompt. */
  recall?: { embeddingModel: EmbeddingModel; topK?: number };
}

export type RecordedMemory = NonNullable<RunInput['memory']>;

/** The name the door journals the turn's append under (never a model's tool: the model is not offered it). */
export const APPEND_TURN_TOOL = 'gnl.memory.append';
/** Its call id: one per run. */
export const APPEND_TURN_CALL = 'memory-append';

const printable = (what: string) =>
  z
    .string()
    .min(1, `${what}: 1 to 200 characters`)
    .max(200, `${what}: 1 to 200 characters`)
    .refine((v) => !/[\p{Cc}\p{Cf}]/u.test(v), `${what}: no control or invisible characters`);

const optionsSchema = z.object({
  store: z.custom<MemoryStore>((v) => typeof v === 'object' && v !== null && typeof (v as MemoryStore).history === 'function', 'store: a MemoryStore'),
  resource: printable('resource'),
  thread: printable('thread'),
  lastMessages: z.number().int().min(0).max(100).optional(),
  recall: z.object({ embeddingModel: z.unknown(), topK: z.number().int().min(1).max(20).optional() }).optional(),
});

/** Checks the option; MemoryInputError names each problem. */
export function parseRunMemory(memory: unknown): RunMemory {
  const parsed = optionsSchema.safeParse(memory);
  if (!parsed.success) throw new MemoryInputError({ what: 'runDurable refused the memory option', problems: parsed.error.issues.map((i) => i.message) });
  return memory as RunMemory;
}

/** The text of a run's own prompt or messages: what semantic recall searches for, and what the thread keeps. */
export function userTexts(own: { prompt?: unknown; messages?: unknown }): string[] {
  if (typeof own.prompt === 'string') return [own.prompt];
  const list = (Array.isArray(own.prompt) ? own.prompt : Array.isArray(own.messages) ? own.messages : []) as ModelMessage[];
  return list
    .filter((m) => m.role === 'user')
    .map(textOf)
    .filter((t) => t.length > 0);
}

function textOf(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim();
}

/** Reads what a new run is given: the thread's last messages and, with recall, the similar items (journaled by the caller in the start input). */
export async function readRunMemory(memory: RunMemory, own: { prompt?: unknown; messages?: unknown }, runId: string): Promise<RecordedMemory> {
  const { store, resource, thread } = memory;
  const history = (memory.lastMessages ?? 10) > 0 ? await store.history({ resource, thread, limit: memory.lastMessages ?? 10 }) : [];
  const messages: ModelMessage[] = [];
  let recalled: RecalledItem[] = [];
  const query = userTexts(own).join('\n').slice(0, 8_000);
  if (memory.recall && query.length > 0) {
    const { embedding } = await embed({ model: memory.recall.embeddingModel, value: query });
    const shown = new Set(history.map((h) => h.id));
    recalled = (await store.search({ resource, embedding: unitVector(embedding), topK: memory.recall.topK ?? 5 })).filter((item) => !shown.has(item.id));
    if (recalled.length > 0) messages.push({ role: 'system', content: recallText(recalled) });
  }
  for (const item of history) messages.push(historyMessage(item, runId));
  return {
    resource,
    thread,
    messages,
    ...(recalled.length > 0 ? { recalled: recalled.map(({ id, kind, score }) => ({ id, kind, score })) } : {}),
  };
}

function recallText(items: RecalledItem[]): string {
  const lines = items.map((item) => `- (${item.kind}, ${item.createdAt.slice(0, 10)}, similarity ${item.score.toFixed(2)}) ${item.text}`);
  return ['What is remembered from earlier conversations with this customer, most similar first:', ...lines].join('\n');
}

function historyMessage(item: MemoryItem, runId: string): ModelMessage {
  if (item.role === 'assistant') return { role: 'assistant', content: item.text };
  if (item.role === 'user') return { role: 'user', content: item.text };
  throw new MemoryInputError({ what: `run "${runId}" cannot be given thread message ${item.id}`, problems: [`its role is "${item.role}"`] });
}

/** The messages the model is given: the recorded memory's, then the run's own (a prompt string made a user message). */
export function withMemoryMessages(recorded: RecordedMemory, own: { prompt?: unknown; messages?: unknown }): ModelMessage[] {
  const given = (recorded.messages ?? []) as ModelMessage[];
  if (typeof own.prompt === 'string') return [...given, { role: 'user', content: own.prompt }];
  const list = (Array.isArray(own.prompt) ? own.prompt : Array.isArray(own.messages) ? own.messages : []) as ModelMessage[];
  return [...given, ...list];
}

/** The door's tool that appends a completed run's turn to its thread (a side effect under the door's key; the store's unique key makes it one write). */
export function appendTurnTool(memory: RunMemory, runId: string): Tool {
  const { store, resource, thread } = memory;
  const output = (items: MemoryItem[]) => ({ appended: items.map((i) => i.id) });
  return gnlTool(
    tool({
      description: 'append the turn to the memory thread',
      inputSchema: z.object({ messages: z.array(z.object({ role: z.enum(['user', 'assistant']), text: z.string() })) }),
      execute: async ({ messages }, { idempotencyKey }: { idempotencyKey?: string }) => {
        if (!idempotencyKey) throw new Error('the memory append runs through the journal: it needs the call’s idempotency key');
        // With recall, the turn is embedded too: a later run's recall finds these messages.
        const embeddings = memory.recall ? (await embedMany({ model: memory.recall.embeddingModel, values: messages.map((m) => m.text) })).embeddings : [];
        const items = messages.map((m, i) => {
          const embedding = embeddings[i];
          return { kind: 'message' as const, thread, role: m.role, text: m.text, ...(embedding ? { embedding: unitVector(embedding) } : {}) };
        });
        const written = await store.add({ resource, key: idempotencyKey, runId, items });
        return output(written.items);
      },
    }),
    memoryWriteOptions(store, output),
  ) as Tool;
}
