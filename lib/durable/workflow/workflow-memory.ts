/**
 * A workflow's memory (docs/memory.md#in-a-workflow): `wf.memory`, for the resource the run was given
 * (runWorkflow's `memory`; a registered workflow's runs: their `subject`). Every call is a step, so it
 * goes through the one door like any other:
 *
 *   recall(name, query)          a read: the query embedded and the resource searched once; the items
 *                                (with their scores) are the step's recorded output, so a replay or a
 *                                resume gets them without asking the store or the embedding model again;
 *   remember(name, facts)        a side effect, retrySafe: the facts stored under the step's idempotency
 *                                key (the store writes a key once; a check asks whether it was written);
 *   working(name)                a read: the working memory record and its version, recorded;
 *   updateWorking(name, change)  a side effect: the version after the one read, or a conflict with the
 *                                current one (never a lost update).
 */
import { type EmbeddingModel, embed, embedMany } from 'ai';
import { WorkflowInputError } from '../errors';
import type { MemoryItem, MemoryStore, RecalledItem, WorkingMemory, WorkingWrite } from '../memory/memory-store';
import { unitVector } from '../memory/memory-store';
import { memoryWriteOptions } from '../memory/memory-tools';
import type { StepContext, StepOptions } from './step-options';

export interface WorkflowMemoryOptions {
  store: MemoryStore;
  /** Whose memory: a customer, a user (1 to 200 characters). */
  resource: string;
  /** For recall and for embedding remembered facts; without it recall is refused and facts are stored without embeddings. */
  embeddingModel?: EmbeddingModel;
  /** Items recall returns by default (at most 20). Default 5. */
  topK?: number;
}

/** What the workflow's steps run through (WorkflowContext.step). */
type Step = <INPUT, OUTPUT>(name: string, options: StepOptions<INPUT, OUTPUT>, run: (ctx: StepContext<INPUT>) => OUTPUT | Promise<OUTPUT>) => Promise<OUTPUT>;

export class WorkflowMemory {
  constructor(
    private readonly options: WorkflowMemoryOptions,
    private readonly step: Step,
    private readonly runId: string,
  ) {}

  /** The resource's items most similar to `query`, best first, with their scores: a recorded read. */
  recall(name: string, query: string, options: { topK?: number; kinds?: ('message' | 'fact')[] } = {}): Promise<RecalledItem[]> {
    const { store, resource, embeddingModel } = this.options;
    if (!embeddingModel) throw refused(`wf.memory.recall("${name}")`, 'this run’s memory has no embeddingModel to search with');
    const topK = Math.min(Math.max(options.topK ?? this.options.topK ?? 5, 1), 20);
    return this.step(name, { input: { query, topK, ...(options.kinds ? { kinds: options.kinds } : {}) } }, async () => {
      const { embedding } = await embed({ model: embeddingModel, value: query });
      return store.search({ resource, embedding: unitVector(embedding), topK, ...(options.kinds ? { kinds: options.kinds } : {}) });
    });
  }

  /** Stores facts about the resource, once: a side effect under the step's key. Returns the stored items' ids. */
  remember(name: string, facts: readonly string[]): Promise<{ remembered: number[] }> {
    const { store, resource, embeddingModel } = this.options;
    if (!Array.isArray(facts) || facts.length === 0 || facts.some((f) => typeof f !== 'string' || f.trim() === ''))
      throw refused(`wf.memory.remember("${name}")`, 'facts: one or more texts');
    const output = (items: MemoryItem[]) => ({ remembered: items.map((item) => item.id) });
    const { sideEffect, retrySafe, check } = memoryWriteOptions(store, output);
    return this.step(name, { input: { facts: [...facts] }, sideEffect, retrySafe, ...(check ? { check } : {}) }, async ({ idempotencyKey }) => {
      const embeddings = embeddingModel ? (await embedMany({ model: embeddingModel, values: [...facts] })).embeddings : [];
      const items = facts.map((text, i) => {
        const embedding = embeddings[i];
        return { kind: 'fact' as const, text, ...(embedding ? { embedding: unitVector(embedding) } : {}) };
      });
      return output((await store.add({ resource, key: idempotencyKey, runId: this.runId, items })).items);
    });
  }

  /** The working memory record and its version (0 and undefined when there is none): a recorded read. */
  working(name: string): Promise<{ version: number; value: unknown }> {
    const { store, resource } = this.options;
    return this.step(name, { input: null }, async () => {
      const current: WorkingMemory | undefined = await store.working(resource);
      return { version: current?.version ?? 0, value: current?.value };
    });
  }

  /** Writes the record as the version after `expectedVersion`, once; a version written meanwhile is a conflict with the current one. */
  updateWorking(name: string, change: { expectedVersion: number; value: unknown; reason?: string }): Promise<WorkingWrite> {
    // Checked before the step: a version "3" was written as "3" + 1, version 31.
    if (!(Number.isInteger(change?.expectedVersion) && change.expectedVersion >= 0))
      throw refused(`wf.memory.updateWorking("${name}")`, 'expectedVersion: a whole number >= 0 (the version working() read; 0 when there is none)');
    if (change.reason !== undefined && typeof change.reason !== 'string') throw refused(`wf.memory.updateWorking("${name}")`, 'reason: a text');
    const { store, resource } = this.options;
    const by = `workflow-run:${this.runId}`;
    return this.step(
      name,
      {
        input: change,
        sideEffect: true,
        // The store writes a key once and answers a repeat with the version it wrote: after an unknown outcome it is run again.
        retrySafe: true,
      },
      ({ idempotencyKey }) =>
        store.writeWorking({ resource, ...change, by, key: idempotencyKey, runId: this.runId, ...(change.reason ? { reason: change.reason } : {}) }),
    );
  }
}

/** The refusal of a memory call on a run given no memory. */
export function noMemory(): never {
  throw refused('wf.memory', 'this run was given no memory (runWorkflow’s `memory`, or a registered workflow’s `memory` and a run with a `subject`)');
}

function refused(what: string, problem: string): WorkflowInputError {
  return new WorkflowInputError({ what, problems: [problem] });
}
