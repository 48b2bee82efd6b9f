/**
 * The memory port (docs/memory.md): what agents remember across runs, scoped by a resource (a customer,
 * a user) and a thread (a conversation). The core declares it; storage implements it on the journal's
 * own database (lib/durable/storage/memory-store.ts), so the core imports no driver.
 *
 * Every write names its idempotency key: the same key again writes nothing and answers with what the
 * first write made (a retried or replayed write is one write). Working memory is versioned: a write says
 * which version it replaces, and a write that finds it replaced already is a conflict, never a lost update.
 */

export interface MemoryItem {
  id: number;
  resource: string;
  thread: string | null;
  kind: 'message' | 'fact';
  role: string | null;
  text: string;
  runId: string | null;
  createdAt: string;
}

export interface RecalledItem extends MemoryItem {
  /** Cosine similarity to the query, from -1 to 1. */
  score: number;
}

export interface WorkingMemory {
  resource: string;
  version: number;
  value: unknown;
  updatedBy: string;
  reason: string | null;
  runId: string | null;
  at: string;
}

/** A resource that memory holds something about (what the Studio's memory page lists). */
export interface MemoryResource {
  resource: string;
  items: number;
  versions: number;
  /** The newest item's or working memory version's time. */
  lastAt: string;
}

/** A thread of a resource: its message count and its first and last message's times. */
export interface MemoryThread {
  thread: string;
  messages: number;
  firstAt: string;
  lastAt: string;
}

export type WorkingWrite = { ok: true; version: number; replayed: boolean } | { ok: false; conflict: true; current: WorkingMemory | undefined };

export interface MemoryStore {
  /** Appends items (messages of a thread, or facts) under one write's key; the same key again is the items that exist. */
  add(request: {
    resource: string;
    key: string;
    runId?: string;
    items: { kind: 'message' | 'fact'; text: string; thread?: string; role?: string; embedding?: readonly number[] }[];
  }): Promise<{ items: MemoryItem[]; replayed: boolean }>;
  /** Whether a write was made under this key (what a check asks after an unknown outcome). */
  written(key: string): Promise<MemoryItem[] | undefined>;
  /** The resource's newest `limit` items (facts and messages), newest first: what `gnl memory show` lists. */
  items(request: { resource: string; limit: number }): Promise<MemoryItem[]>;
  /** Resources with memory, the most recently active first; `contains`: only ids holding that text. */
  resources(request: { limit: number; contains?: string }): Promise<MemoryResource[]>;
  /** A resource's threads, the most recently active first. */
  threads(request: { resource: string; limit: number }): Promise<MemoryThread[]>;
  /** A thread's last `limit` messages, oldest first. */
  history(request: { resource: string; thread: string; limit: number }): Promise<MemoryItem[]>;
  /** The `topK` items of the resource most similar to `embedding` (unit length), best first: an exact search, no extension needed. */
  search(request: { resource: string; embedding: readonly number[]; topK: number; kinds?: readonly ('message' | 'fact')[] }): Promise<RecalledItem[]>;
  working(resource: string): Promise<WorkingMemory | undefined>;
  /** Writes version `expectedVersion + 1` (0: the first); the same key again answers with the version it wrote. */
  writeWorking(request: {
    resource: string;
    expectedVersion: number;
    value: unknown;
    by: string;
    reason?: string;
    key: string;
    runId?: string;
  }): Promise<WorkingWrite>;
  /** Every version of a resource's working memory, newest first (the audit). */
  workingHistory(resource: string): Promise<WorkingMemory[]>;
  /** Deletes everything remembered about a resource (erasure): the counts deleted. */
  forget(resource: string): Promise<{ items: number; versions: number }>;
}

/** A vector made unit length (a zero vector is refused: it has no direction to compare). */
export function unitVector(values: readonly number[]): number[] {
  let sum = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) throw new TypeError('an embedding holds only finite numbers');
    sum += v * v;
  }
  const norm = Math.sqrt(sum);
  if (norm === 0) throw new TypeError('an embedding of length zero cannot be compared');
  return values.map((v) => v / norm);
}
